import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { Readable, pipeline } from "node:stream";
import type { BrotliDecompress, Gunzip, Inflate } from "node:zlib";
import { HttpHeaders, HttpResponse } from "./fetch-classes.js";

/**
 * `fetch` for the model SDKs and model lists, over node:http and node:https. Node's own `fetch`
 * (undici) instantiates its HTTP parser in WebAssembly on first use: ~45 ms of CPU and a ~30 MB
 * peak of resident memory, in the middle of a session's first prompt. This one does what those
 * callers ask of `fetch` — a method, headers, a string or bytes body, an abort signal, following
 * redirects — and hands back a `Response` whose body streams as it arrives (`HttpResponse`, which
 * does not load Node's fetch).
 *
 * Contract, as the fetch standard: resolves with the response once its headers arrive (any HTTP
 * status); rejects with `signal.reason` (an `AbortError` by default) when the signal aborts first,
 * and with `TypeError("fetch failed", { cause })` when the connection fails, naming the network
 * error in `cause` (e.g. `ECONNREFUSED`); an abort after the headers errors the body stream with
 * the same reason. Bodies are decompressed (gzip, deflate, br) and `url` / `redirected` are set.
 * Redirects are followed up to 20 times; a 303, or a 301/302 after a POST, becomes a GET without
 * body; a redirect to another origin drops the credentials (`authorization`, `cookie`,
 * `proxy-authorization`, `x-api-key`, `api-key`). Connections are kept alive and reused (an idle
 * one closes after 4 s, or sooner when the server says so) and never hold the process open.
 * Anything else — a `Request` object, a stream, form-data or blob body, another `redirect` mode, a
 * non-HTTP URL — goes to the global `fetch` unchanged.
 */
export const httpFetch: typeof fetch = (input, init) => {
  let plan: RequestPlan | undefined;
  try {
    plan = planRequest(input, init);
  } catch (error) {
    // An unparsable URL, as fetch: a rejected promise, never a throw.
    return Promise.reject(new TypeError("fetch failed", { cause: error }));
  }
  return plan ? send(plan, 0) : fetch(input, init);
};

interface RequestPlan {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
  redirected: boolean;
}

const MAX_REDIRECTS = 20;
const IDLE_SOCKET_MS = 4_000;
const httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
/** node:https (and TLS) and node:zlib load on first need: a local model server needs neither. */
const builtin = createRequire(import.meta.url);
let https: { agent: import("node:https").Agent; request: typeof import("node:https").request } | undefined;
function httpsClient(): NonNullable<typeof https> {
  if (!https) {
    const module = builtin("node:https") as typeof import("node:https");
    https = { agent: new module.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }), request: module.request };
  }
  return https;
}
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization", "x-api-key", "api-key"];
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The request to send, or undefined when it needs something only the global fetch does. */
function planRequest(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): RequestPlan | undefined {
  let url: URL;
  if (typeof input === "string") url = new URL(input);
  else if (input instanceof URL) url = new URL(input.href);
  else return undefined;
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (init?.redirect !== undefined && init.redirect !== "follow") return undefined;
  const headers = headerRecord(init?.headers);
  if (!headers) return undefined;
  const body = bodyBytes(init?.body, headers);
  if (body === null) return undefined;
  headers.accept ??= "*/*";
  headers["accept-encoding"] ??= "gzip, deflate, br";
  return { url, method: (init?.method ?? "GET").toUpperCase(), headers, body, signal: init?.signal ?? undefined, redirected: false };
}

/** Header names lower-cased; undefined for a form this does not read. */
function headerRecord(init: HeadersInit | undefined): Record<string, string> | undefined {
  const record: Record<string, string> = {};
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    record[key] = record[key] === undefined ? value : `${record[key]}, ${value}`;
  };
  if (init === undefined) return record;
  if (Array.isArray(init)) {
    for (const pair of init) {
      if (pair.length !== 2 || typeof pair[0] !== "string" || typeof pair[1] !== "string") return undefined;
      add(pair[0], pair[1]);
    }
    return record;
  }
  const forEach = (init as { forEach?: unknown }).forEach;
  if (typeof forEach === "function") {
    (init as Headers).forEach((value, name) => add(name, value));
    return record;
  }
  for (const [name, value] of Object.entries(init)) if (typeof value === "string") add(name, value);
  return record;
}

/** The body as bytes (setting `content-type` as fetch does for text); null for a kind left to the global fetch. */
function bodyBytes(body: RequestInit["body"], headers: Record<string, string>): Buffer | undefined | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") {
    headers["content-type"] ??= "text/plain;charset=UTF-8";
    return Buffer.from(body, "utf8");
  }
  if (body instanceof URLSearchParams) {
    headers["content-type"] ??= "application/x-www-form-urlencoded;charset=UTF-8";
    return Buffer.from(body.toString(), "utf8");
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return null;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function send(plan: RequestPlan, redirects: number): Promise<Response> {
  const { url, method, headers, body, signal } = plan;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<Response>((resolve, reject) => {
    const outgoing: OutgoingHttpHeaders = { ...headers };
    if (body) outgoing["content-length"] = String(body.length);
    const tls = url.protocol === "https:" ? httpsClient() : undefined;
    const request = tls ? tls.request(url, { method, headers: outgoing, agent: tls.agent }) : httpRequest(url, { method, headers: outgoing, agent: httpAgent });
    let settled = false;
    let response: IncomingMessage | undefined;
    const onAbort = (): void => {
      const reason = abortReason(signal as AbortSignal);
      const error = reason instanceof Error ? reason : new DOMException(String(reason), "AbortError");
      if (!settled) {
        settled = true;
        reject(reason);
      }
      request.destroy(error);
      response?.destroy(error);
    };
    const release = (): void => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    const fail = (cause: unknown): void => {
      release();
      if (settled) return;
      settled = true;
      reject(new TypeError("fetch failed", { cause }));
    };
    request.on("error", fail);
    // A 101 to a request that asked for no upgrade: nothing can be read from that socket.
    request.on("upgrade", (_incoming, socket) => {
      socket.destroy();
      fail(new Error("the server switched protocols (101) for a plain HTTP request"));
    });
    request.on("close", () => {
      if (!settled) fail(new Error("the connection closed before a response"));
    });
    request.on("response", (incoming) => {
      response = incoming;
      const status = incoming.statusCode ?? 0;
      const location = incoming.headers.location;
      if (location !== undefined && [301, 302, 303, 307, 308].includes(status)) {
        incoming.resume();
        release();
        settled = true;
        const next = redirectPlan(plan, location, status);
        if (redirects >= MAX_REDIRECTS) reject(new TypeError("fetch failed", { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) }));
        else if (!next) reject(new TypeError("fetch failed", { cause: new Error(`unusable redirect location ${JSON.stringify(location)}`) }));
        else resolve(send(next, redirects + 1));
        return;
      }
      settled = true;
      try {
        resolve(toResponse(plan, incoming, release));
      } catch (error) {
        // A status `Response` cannot carry (below 200 or above 599).
        incoming.destroy();
        release();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    request.end(body);
  });
}

/** The request a redirect asks for, or undefined when its location is not an http(s) URL. */
function redirectPlan(plan: RequestPlan, location: string, status: number): RequestPlan | undefined {
  let url: URL;
  try {
    url = new URL(location, plan.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const headers = { ...plan.headers };
  let { method, body } = plan;
  if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
    method = "GET";
    body = undefined;
    for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) delete headers[name];
  }
  if (url.origin !== plan.url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return { ...plan, url, method, headers, body, redirected: true };
}

function toResponse(plan: RequestPlan, incoming: IncomingMessage, release: () => void): Response {
  const status = incoming.statusCode ?? 0;
  const headers = new HttpHeaders();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  incoming.once("close", release);
  let body: ReadableStream<Uint8Array> | null = null;
  if (plan.method === "HEAD" || NULL_BODY_STATUSES.has(status)) {
    incoming.resume();
  } else {
    const decoders = decodersFor(incoming.headers["content-encoding"]);
    const stream = decoders.length > 0 ? pipeline([incoming, ...decoders], () => undefined) : incoming;
    body = Readable.toWeb(stream as Readable) as ReadableStream<Uint8Array>;
  }
  const response = new HttpResponse(body, { status, statusText: incoming.statusMessage ?? "", headers, url: plan.url.href, redirected: plan.redirected });
  // What its callers read of a Response, as the standard has it (fetch-classes.ts).
  return response as unknown as Response;
}

/**
 * Decoders for a `content-encoding` list, last applied first (`gzip, br` was gzipped, then
 * brotli'd); none when any coding is unknown (the body is then passed on as sent, as fetch does).
 * Like fetch, a stream cut short at its end decodes what arrived (sync flush) instead of failing.
 */
function decodersFor(encoding: string | undefined): Array<Gunzip | Inflate | BrotliDecompress> {
  const codings = (encoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0 || codings.some((coding) => !["gzip", "x-gzip", "deflate", "br"].includes(coding))) return [];
  const zlib = builtin("node:zlib") as typeof import("node:zlib");
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const brotli = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };
  return codings
    .reverse()
    .map((coding) => (coding === "br" ? zlib.createBrotliDecompress(brotli) : coding === "deflate" ? zlib.createInflate(lenient) : zlib.createGunzip(lenient)));
}
