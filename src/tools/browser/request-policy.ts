/**
 * Which URLs the browser may reach: the web URL policy (`../web/url-policy.ts`: http(s) only,
 * cloud-metadata addresses never, blocked domains, private addresses only when allowed), except
 * that loopback — 127.0.0.0/8, ::1, 0.0.0.0, `localhost` and `*.localhost` — is allowed when
 * `browser.allow_localhost` is on, so the user's own dev servers work. The policy proxy
 * (`policy-proxy.ts`) applies it to every request and redirect a page makes; navigation applies it
 * to the URL first and to where the page ended up. Failures close.
 */
import { BlockList } from "node:net";
import { redactRegisteredSecrets, redactSecrets } from "../../config/redact.js";
import { embeddedIpv4 } from "../web/address-class.js";
import { blockedDomainRule, classifyAddress, systemResolver, vetUrl, type Resolver, type UrlPolicy, type VetResult } from "../web/url-policy.js";

export interface BrowserUrlPolicy {
  /** The web policy; `allowPrivate` already includes `browser.allow_private_urls`. */
  web: UrlPolicy;
  /** Loopback addresses may be reached even when other private ones may not. */
  allowLocalhost: boolean;
}

export type BrowserVetResult = VetResult;

let loopback: BlockList | undefined;

/** True for loopback and the unspecified addresses (which reach this machine when connected to). */
export function isLoopbackAddress(raw: string): boolean {
  const address = raw.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!loopback) {
    loopback = new BlockList();
    loopback.addSubnet("127.0.0.0", 8, "ipv4");
    loopback.addAddress("0.0.0.0", "ipv4");
    loopback.addAddress("::1", "ipv6");
    loopback.addAddress("::", "ipv6");
  }
  if (classifyAddress(address) === "invalid") return false;
  if (address.includes(":")) {
    const v4 = embeddedIpv4(address);
    if (v4) return loopback.check(v4, "ipv4");
    return loopback.check(address, "ipv6");
  }
  return loopback.check(address, "ipv4");
}

function isLocalhostName(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost");
}

const LOOPBACK_OFF = "browser.allow_localhost is off in config.yaml";

/**
 * Checks `raw` (http, https, ws or wss) and resolves its host, like `vetUrl`; `ok` results carry
 * the addresses to connect to. `*.localhost` maps to 127.0.0.1 (as browsers do), unresolved.
 * Never throws.
 */
export async function vetBrowserUrl(raw: string | URL, policy: BrowserUrlPolicy, resolve: Resolver = systemResolver): Promise<BrowserVetResult> {
  let url: URL;
  try {
    url = new URL(typeof raw === "string" ? raw : raw.href);
  } catch {
    return { ok: false, kind: "invalid", reason: `Not a valid URL: ${String(raw).slice(0, 200)}` };
  }
  if (url.protocol === "ws:" || url.protocol === "wss:") url.protocol = url.protocol === "ws:" ? "http:" : "https:";
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, kind: "scheme", reason: `Blocked: only http and https URLs can be opened in the browser, not ${url.protocol.replace(/:$/, "") || "this scheme"}` };
  }
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.+$/, "");
  const mayLoopback = policy.allowLocalhost || policy.web.allowPrivate;
  if (hostname !== "localhost" && isLocalhostName(hostname)) {
    const rule = blockedDomainRule(hostname, policy.web);
    if (rule) return { ok: false, kind: "blocked_domain", rule, reason: `Blocked by website policy: '${hostname}' matched rule '${rule}' (web.blocked_domains)` };
    if (!mayLoopback) return { ok: false, kind: "private", reason: `Blocked: ${hostname} is this machine (loopback); ${LOOPBACK_OFF}` };
    return { ok: true, url, hostname, addresses: [{ address: "127.0.0.1", family: 4 }] };
  }
  const vetted = await vetUrl(url, { ...policy.web, allowPrivate: true }, resolve);
  if (!vetted.ok) return vetted;
  for (const { address } of vetted.addresses) {
    if (classifyAddress(address) !== "private" || policy.web.allowPrivate) continue;
    const shown = hostname === address ? address : `${hostname} (${address})`;
    if (isLoopbackAddress(address)) {
      if (policy.allowLocalhost) continue;
      return { ok: false, kind: "private", reason: `Blocked: ${shown} is this machine (loopback); ${LOOPBACK_OFF}` };
    }
    return {
      ok: false,
      kind: "private",
      reason: `Blocked: ${shown} is a private or internal network address (set web.allow_private_urls: true in config.yaml to allow it)`,
    };
  }
  return vetted;
}

/**
 * What the model typed as a URL, made absolute: kept when it has a scheme (`https://…`,
 * `about:blank`), `http://` for loopback hosts (`localhost:3000`, `127.0.0.1:8080`), else
 * `https://` (as agent-browser does).
 */
export function normalizeNavigationUrl(input: string): string {
  const text = input.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(about|data|javascript|file|blob|chrome|view-source):/i.test(text)) return text;
  const host = text.split(/[/?#]/, 1)[0]!.replace(/:\d+$/, "").toLowerCase();
  const local = isLocalhostName(host) || isLoopbackAddress(host);
  return `${local ? "http" : "https"}://${text}`;
}

/**
 * Why `url` must not be opened because it carries a secret (Hermes' exfiltration guard): one of
 * the agent's own keys, or something shaped like an API key or token, in any part of it, raw or
 * percent-decoded. Undefined when it carries none.
 */
export function urlSecretReason(url: string): string | undefined {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // keep it raw
  }
  const parts = [url, decoded].flatMap((text) => text.split(/[/?&=#:;,+@\s]+/)).filter((part) => part.length >= 8);
  const found = redactRegisteredSecrets(decoded) !== decoded || parts.some((part) => redactSecrets(part) !== part);
  return found ? "Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs." : undefined;
}
