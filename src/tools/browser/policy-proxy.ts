/**
 * The wall between the browser and the network: an HTTP proxy on 127.0.0.1 that Chromium is
 * launched behind (`--proxy-server`, with loopback forced through it too), so *every* connection
 * a page opens — subresources, fetch/XHR, WebSockets, iframes, and each hop of a redirect, which
 * Playwright's request routing never sees — is checked against the URL policy first. The proxy
 * connects only to the addresses the check resolved (so DNS cannot change between check and
 * connect), never follows redirects itself, and refuses with 403 (plain HTTP, a small page naming
 * the reason) or a failed tunnel (HTTPS, WSS). Each refusal is reported through `onRefusal`.
 *
 * Not a general proxy: it serves one browser, listens on loopback only, and ends every open
 * connection on `close()`.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { BrowserVetResult } from "./request-policy.js";

/** Checks one URL the browser wants (CONNECT tunnels as `https://host:port/`). Must not throw. */
export type ProxyCheck = (url: URL) => Promise<BrowserVetResult>;

export interface ProxyRefusal {
  /** The URL asked for (`https://host:port/` for a tunnel, whose path the proxy cannot see). */
  url: string;
  reason: string;
}

/** Headers that describe one connection, not the message; never forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);

export class PolicyProxy {
  private readonly sockets = new Set<Duplex>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`, for Chromium's `--proxy-server`. */
    readonly url: string,
  ) {}

  /** Starts a proxy on a free loopback port. Rejects only when it cannot listen. */
  static async start(check: ProxyCheck, onRefusal: (refusal: ProxyRefusal) => void): Promise<PolicyProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const proxy = new PolicyProxy(server, `http://127.0.0.1:${port}`);
    server.on("connection", (socket: Socket) => proxy.track(socket));
    server.on("request", (req: IncomingMessage, res: ServerResponse) => void proxy.forward(req, res, check, onRefusal));
    server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => void proxy.tunnel(req, socket, head, check, onRefusal));
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => void proxy.upgrade(req, socket, head, check, onRefusal));
    server.on("clientError", (_error, socket: Duplex) => socket.destroy());
    return proxy;
  }

  /** Stops listening and ends every connection, tunnels included. Never rejects. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  /** A plain-HTTP request (`GET http://host/path`): checked, then sent to the vetted address as is. */
  private async forward(req: IncomingMessage, res: ServerResponse, check: ProxyCheck, onRefusal: (refusal: ProxyRefusal) => void): Promise<void> {
    const target = absoluteUrl(req.url);
    if (!target) {
      res.writeHead(400, { "content-type": "text/plain" }).end("This proxy serves the agent's browser only.\n");
      return;
    }
    const verdict = await check(target);
    if (!verdict.ok) {
      onRefusal({ url: target.href, reason: verdict.reason });
      const body = `<!doctype html><title>Blocked</title><p>${escapeHtml(verdict.reason)}</p>`;
      res.writeHead(403, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(body);
      return;
    }
    const [first] = verdict.addresses;
    const upstream = httpRequest({
      host: first!.address,
      family: first!.family,
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: forwardedHeaders(req.rawHeaders),
      setHost: false,
      agent: false,
    });
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end("Could not reach the server.\n");
      else res.destroy();
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  }

  /** `CONNECT host:port` (HTTPS, WSS): checked as `https://host:port/`, then a raw tunnel to the vetted address. */
  private async tunnel(req: IncomingMessage, socket: Duplex, head: Buffer, check: ProxyCheck, onRefusal: (refusal: ProxyRefusal) => void): Promise<void> {
    this.track(socket);
    const target = absoluteUrl(`https://${req.url ?? ""}/`);
    const verdict = target ? await check(target) : undefined;
    if (!target || !verdict?.ok) {
      if (target && verdict && !verdict.ok) onRefusal({ url: target.href, reason: verdict.reason });
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const [first] = verdict.addresses;
    const upstream = connect({ host: first!.address, family: first!.family, port: Number(target.port || 443) });
    this.track(upstream);
    upstream.once("connect", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once("error", () => {
      if (!socket.destroyed) socket.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
    });
    socket.once("close", () => upstream.destroy());
    upstream.once("close", () => socket.destroy());
  }

  /** A plain-HTTP upgrade (`ws://` without a tunnel): checked, then the request head replayed upstream. */
  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, check: ProxyCheck, onRefusal: (refusal: ProxyRefusal) => void): Promise<void> {
    this.track(socket);
    const target = absoluteUrl(req.url);
    const verdict = target ? await check(target) : undefined;
    if (!target || !verdict?.ok) {
      if (target && verdict && !verdict.ok) onRefusal({ url: target.href, reason: verdict.reason });
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const [first] = verdict.addresses;
    const upstream = connect({ host: first!.address, family: first!.family, port: Number(target.port || 80) });
    this.track(upstream);
    upstream.once("connect", () => {
      const lines = [`${req.method ?? "GET"} ${target.pathname}${target.search} HTTP/1.1`];
      const raw = req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        if (!raw[i]!.toLowerCase().startsWith("proxy-")) lines.push(`${raw[i]}: ${raw[i + 1]}`);
      }
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once("error", () => socket.destroy());
    socket.once("close", () => upstream.destroy());
    upstream.once("close", () => socket.destroy());
  }
}

function absoluteUrl(raw: string | undefined): URL | undefined {
  if (!raw || !/^[a-z]+:\/\//i.test(raw)) return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** Raw headers (name, value, name, value…) without hop-by-hop ones, in the same flat form. */
function forwardedHeaders(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!);
}
