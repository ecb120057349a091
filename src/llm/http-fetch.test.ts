import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "../../test/support/fresh-process.js";
import { httpFetch } from "./http-fetch.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  remotePort: number | undefined;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }
});

/** A real HTTP server on 127.0.0.1 answering with `handler`; `seen` records every request. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse, seen: Seen) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const entry = { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body, remotePort: request.socket.remotePort };
      seen.push(entry);
      handler(request, response, entry);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("httpFetch", () => {
  it("sends method, headers and a JSON body, and reads status, headers and JSON like fetch", async () => {
    const { url, seen } = await serve((_request, response, entry) => {
      response.writeHead(201, { "content-type": "application/json", "x-request-id": "req-1" });
      response.end(JSON.stringify({ echoed: JSON.parse(entry.body) as unknown }));
    });
    const response = await httpFetch(`${url}/v1/chat?x=1`, {
      method: "post",
      headers: new Headers({ Authorization: "Bearer k", "Content-Type": "application/json" }),
      body: JSON.stringify({ a: 1 }),
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-request-id")).toBe("req-1");
    expect(response.url).toBe(`${url}/v1/chat?x=1`);
    expect(response.redirected).toBe(false);
    expect(await response.json()).toEqual({ echoed: { a: 1 } });
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v1/chat?x=1", body: '{"a":1}' });
    expect(seen[0]?.headers).toMatchObject({ authorization: "Bearer k", "content-type": "application/json", "content-length": "7", accept: "*/*" });
    expect(seen[0]?.headers["accept-encoding"]).toContain("gzip");
  });

  it("takes headers as pairs or a record, and bytes or URLSearchParams bodies", async () => {
    const { url, seen } = await serve((_request, response) => response.end("ok"));
    await (await httpFetch(url, { method: "PUT", headers: [["X-One", "1"], ["x-one", "2"]], body: new TextEncoder().encode("bytes") })).text();
    await (await httpFetch(new URL(url), { method: "POST", headers: { "X-Two": "2" }, body: new URLSearchParams({ q: "a b" }) })).text();
    expect(seen[0]).toMatchObject({ method: "PUT", body: "bytes" });
    expect(seen[0]?.headers["x-one"]).toBe("1, 2");
    expect(seen[1]).toMatchObject({ body: "q=a+b" });
    expect(seen[1]?.headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8");
    expect(seen[1]?.headers["x-two"]).toBe("2");
  });

  it("streams the body as it arrives (server-sent events)", async () => {
    let finish: (() => void) | undefined;
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      finish = () => response.end("data: two\n\n");
    });
    const response = await httpFetch(url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    finish?.();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: two\n\n");
  });

  it("hands the SDKs a body they stream to the end, or stop early, without Node building a vm context", () => {
    // In a fresh process: Node builds its released-reader error in a new vm context once per
    // process (~6 ms, ~2.7 MB), the first time any web stream reader is released.
    const script = [
      "import vm from 'node:vm';",
      "import { createServer } from 'node:http';",
      "import OpenAI from 'openai';",
      "import Anthropic from '@anthropic-ai/sdk';",
      "import { httpFetch } from './src/llm/http-fetch.ts';",
      "let contexts = 0; const original = vm.runInNewContext;",
      "vm.runInNewContext = (...args) => { contexts += 1; return original(...args); };",
      "const chunk = (text) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\\n\\n`;",
      "const event = (type, data) => `event: ${type}\\ndata: ${JSON.stringify({ type, ...data })}\\n\\n`;",
      "const server = createServer((request, response) => {",
      "  response.writeHead(200, { 'content-type': 'text/event-stream' });",
      "  if (request.url.includes('/messages')) {",
      "    response.end(event('message_start', { message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } }) + event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) + event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hi' } }) + event('content_block_stop', { index: 0 }) + event('message_stop', {}));",
      "  } else response.end(chunk('one ') + chunk('two ') + chunk('three') + 'data: [DONE]\\n\\n');",
      "});",
      "await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));",
      "const base = `http://127.0.0.1:${server.address().port}`;",
      "const openai = new OpenAI({ apiKey: 'k', baseURL: `${base}/v1`, fetch: httpFetch, maxRetries: 0 });",
      "let text = '';",
      "for await (const part of await openai.chat.completions.create({ model: 'm', messages: [], stream: true })) text += part.choices[0]?.delta?.content ?? '';",
      "let first = '';",
      "for await (const part of await openai.chat.completions.create({ model: 'm', messages: [], stream: true })) { first = part.choices[0]?.delta?.content ?? ''; break; }",
      "const anthropic = new Anthropic({ apiKey: 'k', baseURL: base, fetch: httpFetch, maxRetries: 0 });",
      "let claude = '';",
      "for await (const part of await anthropic.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], stream: true })) if (part.type === 'content_block_delta' && part.delta.type === 'text_delta') claude += part.delta.text;",
      "server.close();",
      "console.log(JSON.stringify({ text, first, claude, contexts }));",
    ].join("\n");
    expect(runInFreshProcess(script)).toEqual({ text: "one two three", first: "one ", claude: "hi", contexts: 0 });
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("decompresses a %s body", async (encoding, compress) => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-encoding": encoding });
      response.end(compress(Buffer.from("hello, compressed world")));
    });
    expect(await (await httpFetch(url)).text()).toBe("hello, compressed world");
  });

  it("decodes stacked codings last first (gzip, then br) and a gzip stream cut before its trailer", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === "/stacked") {
        response.writeHead(200, { "content-encoding": "gzip, br" });
        response.end(brotliCompressSync(gzipSync(Buffer.from("two layers"))));
      } else {
        const whole = gzipSync(Buffer.from("no trailer here"));
        response.writeHead(200, { "content-encoding": "gzip" });
        response.end(whole.subarray(0, whole.length - 8));
      }
    });
    expect(await (await httpFetch(`${url}/stacked`)).text()).toBe("two layers");
    expect(await (await httpFetch(`${url}/cut`)).text()).toBe("no trailer here");
  });

  it("rejects (never throws) an unparsable URL, and a 101 answer to a plain request, as fetch failures", async () => {
    const bad = httpFetch("http://[not a url");
    await expect(bad).rejects.toMatchObject({ name: "TypeError", message: "fetch failed" });
    const server = createServer();
    server.on("request", (request) => {
      const socket = request.socket;
      socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: weird\r\n\r\n");
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await expect(httpFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" })).rejects.toMatchObject({ name: "TypeError", message: "fetch failed" });
  });

  it("errors the body of a corrupt compressed response instead of returning garbage", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip" });
      response.end("this is not gzip");
    });
    await expect((await httpFetch(url)).text()).rejects.toThrow();
  });

  it("gives 204 and HEAD responses no body, and keeps error statuses as responses", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === "/empty") response.writeHead(204).end();
      else if (request.method === "HEAD") response.writeHead(200, { "content-length": "5" }).end();
      else response.writeHead(429, { "retry-after": "3" }).end('{"error":"slow down"}');
    });
    const empty = await httpFetch(`${url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const head = await httpFetch(url, { method: "HEAD" });
    expect(head.body).toBeNull();
    const limited = await httpFetch(url);
    expect(limited.ok).toBe(false);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(await limited.text()).toBe('{"error":"slow down"}');
  });

  it("follows redirects: 307 keeps method and body, 303 becomes a GET, and another origin gets no credentials", async () => {
    const other = await serve((_request, response) => response.end("elsewhere"));
    const { url, seen } = await serve((request, response) => {
      if (request.url === "/temp") response.writeHead(307, { location: "/final" }).end();
      else if (request.url === "/see-other") response.writeHead(303, { location: `${url}/final` }).end();
      else if (request.url === "/away") response.writeHead(302, { location: `${other.url}/landing` }).end();
      else response.end(`${request.method} ${request.url}`);
    });
    const kept = await httpFetch(`${url}/temp`, { method: "POST", body: "payload", headers: { authorization: "Bearer k" } });
    expect(await kept.text()).toBe("POST /final");
    expect(kept.redirected).toBe(true);
    expect(kept.url).toBe(`${url}/final`);
    expect(seen.find((entry) => entry.url === "/final")).toMatchObject({ method: "POST", body: "payload" });
    expect(await (await httpFetch(`${url}/see-other`, { method: "POST", body: "x" })).text()).toBe("GET /final");
    const away = await httpFetch(`${url}/away`, { headers: { authorization: "Bearer k", "x-api-key": "k2", "x-keep": "1" } });
    expect(await away.text()).toBe("elsewhere");
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.headers["x-api-key"]).toBeUndefined();
    expect(other.seen[0]?.headers["x-keep"]).toBe("1");
  });

  it("stops after 20 redirects with a fetch failure", async () => {
    const { url } = await serve((_request, response) => response.writeHead(302, { location: "/again" }).end());
    await expect(httpFetch(url)).rejects.toMatchObject({ name: "TypeError", message: "fetch failed", cause: { message: "more than 20 redirects" } });
  });

  it("rejects a refused connection as fetch does: TypeError 'fetch failed' with the socket error as cause", async () => {
    const { url } = await serve(() => undefined);
    const port = new URL(url).port;
    const [server] = servers.splice(0);
    await new Promise((resolve) => server?.close(resolve));
    await expect(httpFetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ name: "TypeError", message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  });

  it("rejects with the signal's reason when aborted before the answer, and errors the body when aborted during it", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === "/slow") return; // never answers
      response.writeHead(200);
      response.write("partial");
    });
    const before = new AbortController();
    const pending = httpFetch(`${url}/slow`, { signal: before.signal });
    setTimeout(() => before.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await expect(httpFetch(url, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });

    const during = new AbortController();
    const response = await httpFetch(url, { signal: during.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    during.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("errors the body when the server cuts the connection mid-answer", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      setTimeout(() => response.socket?.destroy(), 10);
    });
    await expect((await httpFetch(url)).text()).rejects.toThrow();
  });

  it("reuses a kept-alive connection for the next request", async () => {
    const { url, seen } = await serve((_request, response) => response.end("ok"));
    await (await httpFetch(url)).text();
    await (await httpFetch(url)).text();
    expect(seen).toHaveLength(2);
    expect(seen[1]?.remotePort).toBe(seen[0]?.remotePort);
  });

  it("leaves what it does not do to the global fetch (a Request object, a Blob body, manual redirects)", async () => {
    const { url, seen } = await serve((request, response) => {
      if (request.url === "/moved") response.writeHead(302, { location: "/x" }).end();
      else response.end(`got ${request.method}`);
    });
    expect(await (await httpFetch(new Request(`${url}/req`, { method: "DELETE" }))).text()).toBe("got DELETE");
    expect(await (await httpFetch(`${url}/blob`, { method: "POST", body: new Blob(["blob body"]) })).text()).toBe("got POST");
    expect(seen.find((entry) => entry.url === "/blob")?.body).toBe("blob body");
    const manual = await httpFetch(`${url}/moved`, { redirect: "manual" });
    expect(manual.status).toBe(302);
  });
});

describe("httpFetch over TLS", () => {
  it("speaks https (node:https, loaded on first use) and refuses a certificate nobody vouches for as a fetch failure", async () => {
    const folder = mkdtempSync(join(tmpdir(), "hermes-tls-"));
    try {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      writeFileSync(join(folder, "key.pem"), privateKey.export({ type: "pkcs8", format: "pem" }));
      execFileSync("openssl", ["req", "-x509", "-new", "-key", join(folder, "key.pem"), "-subj", "/CN=127.0.0.1", "-days", "1", "-out", join(folder, "cert.pem")]);
      const server = createTlsServer({ key: readFileSync(join(folder, "key.pem")), cert: readFileSync(join(folder, "cert.pem")) }, (_request, response) => response.end("secret"));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as AddressInfo).port;
      await expect(httpFetch(`https://127.0.0.1:${port}/`)).rejects.toMatchObject({ name: "TypeError", message: "fetch failed", cause: { code: "DEPTH_ZERO_SELF_SIGNED_CERT" } });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
