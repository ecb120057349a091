import { describe, expect, it } from "vitest";
import { configSchema } from "../../config/schema.js";
import { blockedDomainRule, classifyAddress, normalizeRule, urlPolicyFromConfig, vetUrl, type Resolver, type UrlPolicy } from "./url-policy.js";

const open: UrlPolicy = { allowPrivate: false, blockedDomains: [] };
const permissive: UrlPolicy = { allowPrivate: true, blockedDomains: [] };
/** A resolver answering from a table (DNS is the system's everywhere else). */
const table =
  (answers: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

describe("classifyAddress", () => {
  it.each([
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["169.254.1.1", "metadata"],
    ["100.100.100.200", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["2002:a9fe:a9fe::1", "metadata"],
    ["127.0.0.1", "private"],
    ["10.1.2.3", "private"],
    ["172.20.0.1", "private"],
    ["192.168.1.10", "private"],
    ["100.64.0.1", "private"],
    ["0.0.0.0", "private"],
    ["198.18.0.5", "private"],
    ["224.0.0.1", "private"],
    ["255.255.255.255", "private"],
    ["::1", "private"],
    ["::", "private"],
    ["::ffff:127.0.0.1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1%eth0", "private"],
    ["ff02::1", "private"],
    ["2001:db8::1", "private"],
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["2606:4700:4700::1111", "public"],
    ["::ffff:8.8.8.8", "public"],
    // Every other IPv6 spelling that carries an IPv4 address is judged by that address.
    ["::ffff:0:a9fe:a9fe", "metadata"],
    ["::ffff:0:169.254.169.254", "metadata"],
    ["::169.254.169.254", "metadata"],
    ["64:ff9b:1::a9fe:a9fe", "metadata"],
    ["64:ff9b:1::8.8.8.8", "public"],
    ["::ffff:0:8.8.8.8", "private"],
    ["::8.8.8.8", "private"],
    ["not-an-ip", "invalid"],
  ])("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe("vetUrl", () => {
  it("accepts a public host and returns the addresses to connect to", async () => {
    const result = await vetUrl("https://docs.example.com/a?b=1", open, table({ "docs.example.com": ["93.184.216.34", "2606:2800:220:1::1"] }));
    expect(result).toMatchObject({ ok: true, hostname: "docs.example.com", addresses: [{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::1", family: 6 }] });
  });

  it("refuses anything but http and https", async () => {
    for (const url of ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "data:text/html,hi", "gopher://x"]) {
      expect(await vetUrl(url, permissive, table({}))).toMatchObject({ ok: false, kind: "scheme" });
    }
    expect(await vetUrl("not a url", permissive, table({}))).toMatchObject({ ok: false, kind: "invalid" });
  });

  it("refuses a name when any of its addresses is private, unless private URLs are allowed", async () => {
    const resolve = table({ "intranet.corp": ["93.184.216.34", "10.0.0.7"] });
    expect(await vetUrl("http://intranet.corp/", open, resolve)).toMatchObject({ ok: false, kind: "private", reason: expect.stringContaining("web.allow_private_urls") });
    expect(await vetUrl("http://intranet.corp/", permissive, resolve)).toMatchObject({ ok: true });
    expect(await vetUrl("http://127.0.0.1:8080/", open, table({}))).toMatchObject({ ok: false, kind: "private" });
    expect(await vetUrl("http://[::1]/", open, table({}))).toMatchObject({ ok: false, kind: "private" });
    expect(await vetUrl("http://2130706433/", open, table({}))).toMatchObject({ ok: false, kind: "private" });
  });

  it("refuses cloud metadata even when private URLs are allowed, by address or by name", async () => {
    expect(await vetUrl("http://169.254.169.254/latest/meta-data/", permissive, table({}))).toMatchObject({ ok: false, kind: "metadata" });
    expect(await vetUrl("http://[fd00:ec2::254]/", permissive, table({}))).toMatchObject({ ok: false, kind: "metadata" });
    expect(await vetUrl("http://metadata.google.internal/computeMetadata/v1/", permissive, table({}))).toMatchObject({ ok: false, kind: "metadata" });
    expect(await vetUrl("http://sneaky.example/", permissive, table({ "sneaky.example": ["::ffff:169.254.169.254"] }))).toMatchObject({ ok: false, kind: "metadata" });
  });

  it("fails closed when the name does not resolve", async () => {
    expect(await vetUrl("https://nowhere.invalid/", permissive, table({}))).toMatchObject({ ok: false, kind: "dns", reason: expect.stringContaining("ENOTFOUND") });
  });

  it("refuses blocked domains and their subdomains, before any lookup", async () => {
    const policy: UrlPolicy = { allowPrivate: true, blockedDomains: ["evil.example"] };
    const neverResolve: Resolver = async () => {
      throw new Error("must not resolve a blocked host");
    };
    expect(await vetUrl("https://evil.example/x", policy, neverResolve)).toMatchObject({ ok: false, kind: "blocked_domain", rule: "evil.example" });
    expect(await vetUrl("https://WWW.Evil.Example./x", policy, neverResolve)).toMatchObject({ ok: false, kind: "blocked_domain" });
    expect(await vetUrl("https://notevil.example/x", policy, table({ "notevil.example": ["93.184.216.34"] }))).toMatchObject({ ok: true });
  });

  it("refuses metadata addresses in every IPv6 spelling even when private URLs are allowed", async () => {
    for (const url of ["http://[::ffff:0:a9fe:a9fe]/", "http://[::a9fe:a9fe]/", "http://[64:ff9b:1::a9fe:a9fe]/", "http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "http://[2002:a9fe:a9fe::]/"]) {
      expect(await vetUrl(url, permissive, table({})), url).toMatchObject({ ok: false, kind: "metadata" });
    }
  });

  it("refuses a blocked domain however the rule or the URL spells it (IDN, port, case, trailing dots, IPv4 notation)", async () => {
    const config = configSchema.parse({ web: { blocked_domains: ["bücher.example", "Intranet.Example:8443", "127.1", "[::1]", "例え.テスト"] } });
    const policy = urlPolicyFromConfig(config);
    const neverResolve: Resolver = async () => {
      throw new Error("must not resolve a blocked host");
    };
    for (const url of [
      "https://bücher.example/",
      "https://xn--bcher-kva.example/",
      "https://shop.BÜCHER.example/",
      "https://intranet.example/",
      "https://a.intranet.example:8443/",
      "https://intranet.example.../",
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://[::1]/",
      "http://例え.テスト/",
      "http://xn--r8jz45g.xn--zckzah/",
    ]) {
      expect(await vetUrl(url, { ...policy, allowPrivate: true }, neverResolve), url).toMatchObject({ ok: false, kind: "blocked_domain" });
    }
  });
});

describe("domain rules", () => {
  it("reduce to hosts the way Hermes' website policy does", () => {
    expect(normalizeRule("https://www.Example.com/path")).toBe("example.com");
    expect(normalizeRule("*.tracker.net")).toBe("tracker.net");
    expect(normalizeRule("ads.example.org/banner")).toBe("ads.example.org");
    expect(normalizeRule("# a comment")).toBeUndefined();
    expect(normalizeRule("  ")).toBeUndefined();
    const policy: UrlPolicy = { allowPrivate: false, blockedDomains: ["example.com"] };
    expect(blockedDomainRule("a.b.example.com", policy)).toBe("example.com");
    expect(blockedDomainRule("example.com.evil.net", policy)).toBeUndefined();
  });

  it("come from web.blocked_domains and Hermes' security.website_blocklist (when enabled)", () => {
    const config = configSchema.parse({
      web: { blocked_domains: ["a.example"], allow_private_urls: false },
      security: { allow_private_urls: true, website_blocklist: { enabled: true, domains: ["https://b.example/x", 7] } },
    });
    expect(urlPolicyFromConfig(config)).toEqual({ allowPrivate: true, blockedDomains: ["a.example", "b.example"] });
    const disabled = configSchema.parse({ security: { website_blocklist: { domains: ["b.example"] } } });
    expect(urlPolicyFromConfig(disabled)).toEqual({ allowPrivate: false, blockedDomains: [] });
    expect(urlPolicyFromConfig(configSchema.parse({ web: { blocked_domains: "c.example" } })).blockedDomains).toEqual(["c.example"]);
  });
});
