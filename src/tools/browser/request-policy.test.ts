import { describe, expect, it } from "vitest";
import { registerSecret, clearRegisteredSecrets } from "../../config/redact.js";
import type { Resolver } from "../web/url-policy.js";
import { isLoopbackAddress, normalizeNavigationUrl, urlSecretReason, vetBrowserUrl, type BrowserUrlPolicy } from "./request-policy.js";

const policy = (overrides: { allowPrivate?: boolean; allowLocalhost?: boolean; blockedDomains?: string[] } = {}): BrowserUrlPolicy => ({
  web: { allowPrivate: overrides.allowPrivate ?? false, blockedDomains: overrides.blockedDomains ?? [] },
  allowLocalhost: overrides.allowLocalhost ?? true,
});

/** A resolver answering from a table, refusing names it does not know. */
const table =
  (entries: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = entries[hostname];
    if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const dns = table({ localhost: ["127.0.0.1", "::1"], "example.com": ["93.184.216.34"], "intranet.corp": ["10.0.0.5"], "sneaky.example": ["93.184.216.34", "127.0.0.1"] });

describe("vetBrowserUrl", () => {
  it("allows public hosts and, with allow_localhost, loopback (the user's dev servers)", async () => {
    for (const url of ["https://example.com/", "http://127.0.0.1:3000/", "http://localhost:5173/app", "http://[::1]:8080/", "http://0.0.0.0:3000/", "ws://localhost:3000/socket", "http://app.localhost:3000/"]) {
      expect((await vetBrowserUrl(url, policy(), dns)).ok, url).toBe(true);
    }
    expect(await vetBrowserUrl("http://app.localhost/", policy(), dns)).toMatchObject({ ok: true, addresses: [{ address: "127.0.0.1", family: 4 }] });
  });

  it("refuses loopback when allow_localhost is off, saying which setting", async () => {
    for (const url of ["http://127.0.0.1:3000/", "http://localhost:5173/", "http://app.localhost/"]) {
      const result = await vetBrowserUrl(url, policy({ allowLocalhost: false }), dns);
      expect(result, url).toMatchObject({ ok: false, kind: "private", reason: expect.stringContaining("browser.allow_localhost is off") });
    }
  });

  it("refuses other private addresses unless allowed, and metadata addresses always", async () => {
    expect(await vetBrowserUrl("http://10.0.0.1/", policy(), dns)).toMatchObject({ ok: false, kind: "private", reason: expect.stringContaining("web.allow_private_urls") });
    expect(await vetBrowserUrl("http://intranet.corp/", policy(), dns)).toMatchObject({ ok: false, kind: "private" });
    expect((await vetBrowserUrl("http://intranet.corp/", policy({ allowPrivate: true }), dns)).ok).toBe(true);
    for (const allowPrivate of [false, true]) {
      expect(await vetBrowserUrl("http://169.254.169.254/latest/meta-data", policy({ allowPrivate }), dns)).toMatchObject({ ok: false, kind: "metadata" });
      expect(await vetBrowserUrl("http://metadata.google.internal/", policy({ allowPrivate }), dns)).toMatchObject({ ok: false, kind: "metadata" });
    }
  });

  it("checks every address a name has, so one public address does not carry a private one", async () => {
    expect(await vetBrowserUrl("https://sneaky.example/", policy({ allowLocalhost: false }), dns)).toMatchObject({ ok: false, kind: "private" });
  });

  it("refuses other schemes, blocked domains and names that do not resolve", async () => {
    expect(await vetBrowserUrl("file:///etc/passwd", policy(), dns)).toMatchObject({ ok: false, kind: "scheme" });
    expect(await vetBrowserUrl("chrome://settings", policy(), dns)).toMatchObject({ ok: false, kind: "scheme" });
    expect(await vetBrowserUrl("https://www.example.com/", policy({ blockedDomains: ["example.com"] }), table({ "www.example.com": ["93.184.216.34"] }))).toMatchObject({
      ok: false,
      kind: "blocked_domain",
    });
    expect(await vetBrowserUrl("http://admin.localhost:8080/", policy({ blockedDomains: ["admin.localhost"] }), dns)).toMatchObject({ ok: false, kind: "blocked_domain" });
    expect(await vetBrowserUrl("http://x.admin.localhost./", policy({ blockedDomains: ["admin.localhost"] }), dns)).toMatchObject({ ok: false, kind: "blocked_domain" });
    expect(await vetBrowserUrl("https://nowhere.invalid/", policy(), dns)).toMatchObject({ ok: false, kind: "dns" });
    expect(await vetBrowserUrl("not a url", policy(), dns)).toMatchObject({ ok: false, kind: "invalid" });
  });
});

describe("isLoopbackAddress", () => {
  it("knows loopback in its spellings", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "0.0.0.0", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ["10.0.0.1", "192.168.1.1", "::ffff:10.0.0.1", "fe80::1", "8.8.8.8", "localhost", ""]) expect(isLoopbackAddress(address), address).toBe(false);
  });
});

describe("normalizeNavigationUrl", () => {
  it("adds a scheme like agent-browser: http for this machine, https elsewhere", () => {
    expect(normalizeNavigationUrl("localhost:3000/login")).toBe("http://localhost:3000/login");
    expect(normalizeNavigationUrl("127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    expect(normalizeNavigationUrl("example.com/docs")).toBe("https://example.com/docs");
    expect(normalizeNavigationUrl(" https://example.com ")).toBe("https://example.com");
    expect(normalizeNavigationUrl("about:blank")).toBe("about:blank");
    expect(normalizeNavigationUrl("file:///etc/passwd")).toBe("file:///etc/passwd");
  });
});

describe("urlSecretReason", () => {
  it("refuses URLs carrying an API key or one of the agent's own secrets, raw or percent-encoded", () => {
    expect(urlSecretReason("https://evil.example/steal?key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz")).toContain("Secrets must not be sent in URLs");
    expect(urlSecretReason("https://evil.example/x?k=sk%2Dant%2Dapi03%2Dabcdefghijklmnopqrstuvwxyz")).toContain("API key");
    registerSecret("hunter2-local-secret-value");
    try {
      expect(urlSecretReason("https://evil.example/hunter2-local-secret-value")).toBeDefined();
    } finally {
      clearRegisteredSecrets();
    }
  });

  it("lets ordinary URLs through", () => {
    for (const url of ["https://example.com/docs?page=2&q=hello", "http://localhost:3000/api/users/42", "https://github.com/NousResearch/hermes-agent"]) expect(urlSecretReason(url), url).toBeUndefined();
  });
});
