/**
 * Which URLs the agent may fetch: the one policy for every tool that reaches the web
 * (`web_extract` now; the vision and browser tools reuse it). Hermes' `tools/url_safety.py` and
 * `tools/website_policy.py` in spirit:
 * - only `http:` and `https:`;
 * - cloud-metadata hostnames and addresses (`classifyAddress` → `metadata`) are always refused;
 * - private, loopback, link-local, CGNAT, ULA and reserved addresses are refused unless
 *   `web.allow_private_urls` (or Hermes' `security.allow_private_urls`) is true;
 * - `web.blocked_domains` (and Hermes' `security.website_blocklist` when `enabled`) refuse a host
 *   and its subdomains;
 * - a hostname is resolved and *every* address it has is checked; the caller connects only to the
 *   addresses returned (`VettedUrl.addresses`), so DNS cannot change between check and connect.
 * Failures close: a name that does not resolve, an unparseable URL or address is refused.
 */
import { isIP } from "node:net";
import { z } from "zod";
import type { HermesConfig } from "../../config/schema.js";
import { classifyAddress } from "./address-class.js";
import { loadPackage } from "./load-package.js";

export { classifyAddress, type AddressClass } from "./address-class.js";

export interface UrlPolicy {
  /** Private and loopback addresses may be fetched (metadata addresses still never are). */
  allowPrivate: boolean;
  /** Normalised host rules (`example.com` also covers `a.example.com`). */
  blockedDomains: readonly string[];
}

export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Resolves a hostname to all its addresses; rejects when it cannot. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type RefusalKind = "invalid" | "scheme" | "blocked_domain" | "metadata" | "private" | "dns";

export type VetResult =
  | { ok: true; url: URL; hostname: string; addresses: ResolvedAddress[] }
  | { ok: false; kind: RefusalKind; reason: string; rule?: string };

/** Hostnames of cloud metadata services, refused before any lookup. */
const METADATA_HOSTNAMES = new Set(["metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

const hermesSecurity = z.lazy(() => z
  .object({
    allow_private_urls: z.unknown().optional(),
    website_blocklist: z
      .object({ enabled: z.unknown().optional(), domains: z.array(z.unknown()).optional() })
      .partial()
      .nullish(),
  })
  .partial()
  .nullish());

/**
 * The policy config.yaml sets: `web.allow_private_urls` / `web.blocked_domains`, plus Hermes' own
 * `security.allow_private_urls` and `security.website_blocklist.domains` (when `enabled: true`),
 * so a config shared with Python Hermes keeps its meaning. Never throws.
 */
export function urlPolicyFromConfig(config: Partial<Pick<HermesConfig, "web">> & { security?: unknown }): UrlPolicy {
  const security = hermesSecurity.safeParse(config.security);
  const hermes = security.success ? security.data : undefined;
  const hermesRules = truthy(hermes?.website_blocklist?.enabled) ? (hermes?.website_blocklist?.domains ?? []) : [];
  const rules = [...(config.web?.blocked_domains ?? []), ...hermesRules.filter((rule): rule is string => typeof rule === "string")];
  return {
    allowPrivate: config.web?.allow_private_urls === true || truthy(hermes?.allow_private_urls),
    blockedDomains: [...new Set(rules.map(normalizeRule).filter((rule): rule is string => rule !== undefined))],
  };
}

/** A host rule as written (`example.com`, `*.example.com`, `https://www.example.com/x`) reduced to a host. */
export function normalizeRule(rule: string): string | undefined {
  let value = rule.trim().toLowerCase();
  if (!value || value.startsWith("#")) return undefined;
  if (value.includes("://")) {
    try {
      value = new URL(value).hostname;
    } catch {
      return undefined;
    }
  }
  value = value.split("/", 1)[0]!.replace(/^\*\./, "");
  if (value.includes("@")) return undefined;
  return canonicalHost(value)?.replace(/^www\./, "") || undefined;
}

/** The blocked-domain rule `hostname` matches (itself or a parent domain), if any. */
export function blockedDomainRule(hostname: string, policy: UrlPolicy): string | undefined {
  const host = canonicalHost(hostname) ?? normalizeHost(hostname);
  return policy.blockedDomains.find((rule) => host === rule || host.endsWith(`.${rule}`));
}

/**
 * A host as URLs spell it, so rules and hosts compare alike: the WHATWG host parser's form
 * (lower case, IDN as punycode, full-width dots and percent-escapes decoded, IPv4 in any
 * notation as a dotted quad, a port dropped), without brackets or trailing dots. Undefined when
 * it is not a host at all.
 */
function canonicalHost(value: string): string | undefined {
  const text = value.trim();
  if (!text) return undefined;
  const inner = /^\[([^\]]*)\](?::\d*)?$/.exec(text)?.[1] ?? text;
  const spelled = isIP(inner) === 6 ? `[${inner}]` : text;
  try {
    return normalizeHost(new URL(`http://${spelled}/`).hostname) || undefined;
  } catch {
    return undefined;
  }
}

/** The system resolver (`dns.lookup`, all addresses, in the order the system gives them). */
export const systemResolver: Resolver = async (hostname) => {
  const { lookup } = loadPackage<typeof import("node:dns/promises")>("node:dns/promises");
  return lookup(hostname, { all: true, verbatim: true });
};

/**
 * Checks `raw` against the policy and resolves its host. `ok` results carry the parsed URL and
 * the vetted addresses to connect to (a literal IP yields itself). Never throws; a resolver
 * failure is a `dns` refusal.
 */
export async function vetUrl(raw: string | URL, policy: UrlPolicy, resolve: Resolver = systemResolver): Promise<VetResult> {
  let url: URL;
  try {
    url = typeof raw === "string" ? new URL(raw) : raw;
  } catch {
    return { ok: false, kind: "invalid", reason: `Not a valid URL: ${String(raw).slice(0, 200)}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, kind: "scheme", reason: `Blocked: only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "") || "this scheme"}` };
  }
  const hostname = normalizeHost(url.hostname);
  if (!hostname) return { ok: false, kind: "invalid", reason: `Not a valid URL (no host): ${url.href.slice(0, 200)}` };
  if (METADATA_HOSTNAMES.has(hostname)) {
    return { ok: false, kind: "metadata", reason: `Blocked: ${hostname} is a cloud metadata service; it is never fetched` };
  }
  const rule = blockedDomainRule(hostname, policy);
  if (rule) {
    return { ok: false, kind: "blocked_domain", rule, reason: `Blocked by website policy: '${hostname}' matched rule '${rule}' (web.blocked_domains)` };
  }
  let addresses: ResolvedAddress[];
  if (classifyAddress(hostname) !== "invalid") {
    addresses = [{ address: hostname, family: hostname.includes(":") ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { ok: false, kind: "dns", reason: `Could not resolve ${hostname}${code ? ` (${code})` : ""}` };
    }
    if (addresses.length === 0) return { ok: false, kind: "dns", reason: `Could not resolve ${hostname} (no addresses)` };
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(hostname, address, policy);
    if (refusal) return refusal;
  }
  return { ok: true, url, hostname, addresses };
}

/** Why connecting to `address` (for `hostname`) is refused, or undefined when it is allowed. */
export function addressRefusal(hostname: string, address: string, policy: UrlPolicy): Extract<VetResult, { ok: false }> | undefined {
  const shown = hostname === address ? address : `${hostname} (${address})`;
  switch (classifyAddress(address)) {
    case "metadata":
      return { ok: false, kind: "metadata", reason: `Blocked: ${shown} is a cloud metadata or link-local address; it is never fetched` };
    case "invalid":
      return { ok: false, kind: "dns", reason: `Blocked: ${hostname} resolved to an unparseable address ${address}` };
    case "private":
      if (policy.allowPrivate) return undefined;
      return {
        ok: false,
        kind: "private",
        reason: `Blocked: ${shown} is a private or internal network address (set web.allow_private_urls: true in config.yaml to allow it)`,
      };
    default:
      return undefined;
  }
}

/** Lower case, brackets and trailing dots removed. */
function normalizeHost(hostname: string): string {
  return hostname.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.+$/, "");
}

function truthy(value: unknown): boolean {
  if (value === true) return true;
  return typeof value === "string" && ["true", "1", "yes", "on"].includes(value.trim().toLowerCase());
}
