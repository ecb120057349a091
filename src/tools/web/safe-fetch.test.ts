import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeWeb, type FakeWeb } from "../../../test/support/fake-web.js";
import { safeFetch, WebFetchError } from "./safe-fetch.js";
import type { Resolver, UrlPolicy } from "./url-policy.js";

let web: FakeWeb;
let odd: Server;
let oddUrl: string;
const hosts: string[] = [];
let redirectClosedNow: () => void = () => undefined;
const redirectClosed = new Promise<void>((resolve) => (redirectClosedNow = resolve));
beforeAll(async () => {
  web = await startFakeWeb();
  // Answers that the fake web does not: compressed bodies, redirect loops, oversized bodies, the Host header seen.
  odd = createServer((req, res) => {
    hosts.push(req.headers.host ?? "");
    if (req.url === "/gzip") {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync("squeezed text"));
    } else if (req.url?.startsWith("/loop")) {
      res.writeHead(302, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` });
      res.end();
    } else if (req.url === "/redirect-endless") {
      // A redirect whose body never ends: following it must not keep downloading it.
      res.writeHead(302, { location: "/who" });
      const pump = setInterval(() => res.write("x".repeat(64 * 1024)), 5);
      res.on("close", () => {
        clearInterval(pump);
        redirectClosedNow();
      });
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(2048));
    } else {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`hello from ${req.headers.host}`);
    }
  });
  await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
  oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await web.close();
  odd.closeAllConnections();
  await new Promise<void>((resolve) => odd.close(() => resolve()));
});

const local: UrlPolicy = { allowPrivate: true, blockedDomains: [] };
const strict: UrlPolicy = { allowPrivate: false, blockedDomains: [] };
const signal = new AbortController().signal;

async function refusal(promise: Promise<unknown>): Promise<WebFetchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WebFetchError);
  return error as WebFetchError;
}

describe("safeFetch", () => {
  it("fetches a page on an allowed address", async () => {
    const page = await safeFetch(web.siteUrl("notes.txt"), { policy: local, signal });
    expect(page).toMatchObject({ status: 200, mediaType: "text/plain", charset: "utf-8", url: web.siteUrl("notes.txt") });
    expect(page.body.toString()).toContain("remember the milk");
  });

  it("refuses loopback addresses without allow_private_urls, before connecting", async () => {
    const before = web.siteHits.length;
    const error = await refusal(safeFetch(web.siteUrl("notes.txt"), { policy: strict, signal }));
    expect(error.kind).toBe("refused");
    expect(error.message).toContain("private or internal");
    expect(web.siteHits.length).toBe(before);
  });

  it("checks every redirect: a hop to the metadata address is refused even with private URLs allowed", async () => {
    const error = await refusal(safeFetch(web.siteUrl(`redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data/iam/")}`), { policy: local, signal }));
    expect(error).toMatchObject({ kind: "refused" });
    expect(error.message).toMatch(/169\.254\.169\.254 is a cloud metadata or link-local address.*\(reached by a redirect\)/);
  });

  it("follows a few redirects and stops at the sixth", async () => {
    const followed = await safeFetch(web.siteUrl(`redirect?to=${encodeURIComponent(web.siteUrl("notes.txt"))}`), { policy: local, signal });
    expect(followed.url).toBe(web.siteUrl("notes.txt"));
    const error = await refusal(safeFetch(`${oddUrl}/loop0`, { policy: local, signal }));
    expect(error).toMatchObject({ kind: "failed", message: "Too many redirects (more than 5)" });
  });

  it("drops a redirect's body with its connection instead of downloading it to the end", async () => {
    const page = await safeFetch(`${oddUrl}/redirect-endless`, { policy: local, signal, timeoutMs: 600_000 });
    expect(page.body.toString()).toMatch(/^hello from /);
    // Before the fix the endless body kept streaming until the (here 10-minute) timeout.
    await redirectClosed;
  });

  it("connects to the vetted address whatever the name resolves to later (no DNS rebinding)", async () => {
    let calls = 0;
    // First answer: loopback (allowed here); any later answer would be the metadata address.
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "169.254.169.254", family: 4 }]);
    const port = new URL(oddUrl).port;
    const page = await safeFetch(`http://rebind.test:${port}/who`, { policy: local, signal, resolve: rebinding });
    expect(page.body.toString()).toBe(`hello from rebind.test:${port}`);
    expect(calls).toBe(1);
  });

  it("decompresses, and caps the body at maxBytes", async () => {
    expect((await safeFetch(`${oddUrl}/gzip`, { policy: local, signal })).body.toString()).toBe("squeezed text");
    const error = await refusal(safeFetch(`${oddUrl}/big`, { policy: local, signal, maxBytes: 1024 }));
    expect(error.message).toMatch(/^Response larger than/);
  });

  it("rejects with an AbortError when the turn is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(safeFetch(web.siteUrl("notes.txt"), { policy: local, signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });
});
