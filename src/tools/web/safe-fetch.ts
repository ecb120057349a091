/**
 * One GET of a model-chosen URL under the URL policy (`url-policy.ts`), for every tool that
 * downloads pages or files. Each hop — the first URL and every redirect — is vetted before it is
 * requested, and the socket connects to an address the check returned (a `lookup` that answers
 * only vetted addresses), so a DNS answer cannot change between check and connect. Redirects are
 * followed by hand (at most `maxRedirects`); the body is decompressed and capped at `maxBytes`
 * (decompressed size, so a small compressed bomb is cut too); the whole exchange is cut at
 * `timeoutMs`. Proxies from the environment are not used.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { abortError, isAbortError } from "../../shared/abort.js";
import { VERSION } from "../../shared/version.js";
import { loadPackage } from "./load-package.js";
import { addressRefusal, systemResolver, vetUrl, type ResolvedAddress, type Resolver, type UrlPolicy } from "./url-policy.js";

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface SafeFetchOptions {
  policy: UrlPolicy;
  /** The turn's cancellation; firing it rejects with an AbortError. */
  signal: AbortSignal;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** `Accept` header; a browser-like default for pages. */
  accept?: string;
  /** Resolver for hostnames (tests may pass their own); the system's by default. */
  resolve?: Resolver;
}

export interface FetchedResource {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** `content-type` without parameters, lower case ("" when absent). */
  mediaType: string;
  /** The `charset` parameter of `content-type`, when given. */
  charset?: string;
  body: Buffer;
}

/** Why a fetch did not produce a resource. `refused` = the URL policy said no; `failed` = anything else. */
export class WebFetchError extends Error {
  constructor(
    readonly kind: "refused" | "failed",
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = "WebFetchError";
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = `Mozilla/5.0 (compatible; hermes-acp/${VERSION}; web_extract)`;
const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5";

/**
 * Fetches `raw`. Resolves with the final response whatever its status (callers decide what an
 * HTTP error means); rejects with `WebFetchError` (`refused` for the policy, `failed` for network
 * errors, a timeout, too many redirects, a body over `maxBytes`) or an AbortError when `signal` fires.
 */
export async function safeFetch(raw: string, options: SafeFetchOptions): Promise<FetchedResource> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const resolve = options.resolve ?? systemResolver;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let current: string = raw;
  try {
    for (let hop = 0; ; hop++) {
      const vetted = await vetUrl(current, options.policy, resolve);
      if (!vetted.ok) throw new WebFetchError("refused", hop === 0 ? vetted.reason : `${vetted.reason} (reached by a redirect)`, current);
      const response = await requestOnce(vetted.url, vetted.hostname, vetted.addresses, options, signal);
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
        // A redirect's body is never read: dropped with its connection, however long it would run.
        response.destroy();
        if (hop >= maxRedirects) throw new WebFetchError("failed", `Too many redirects (more than ${maxRedirects})`, current);
        current = new URL(location, vetted.url).href;
        continue;
      }
      const body = await readCapped(response, maxBytes, vetted.url.href);
      const [mediaType = "", ...params] = (response.headers["content-type"] ?? "").split(";");
      const charset = params.map((param) => /^\s*charset\s*=\s*"?([^";\s]+)/i.exec(param)?.[1]).find(Boolean);
      return { url: vetted.url.href, status: response.statusCode ?? 0, headers: response.headers, mediaType: mediaType.trim().toLowerCase(), ...(charset ? { charset } : {}), body };
    }
  } catch (error) {
    if (options.signal.aborted) throw abortError();
    if (error instanceof WebFetchError) throw error;
    if (timeout.aborted || isAbortError(error)) throw new WebFetchError("failed", `Timed out after ${Math.round(timeoutMs / 1000)} s`, current);
    throw new WebFetchError("failed", `Request failed: ${(error as Error).message}`, current);
  }
}

/** One request to `url`, connecting only to `addresses` (already vetted). */
async function requestOnce(url: URL, hostname: string, addresses: ResolvedAddress[], options: SafeFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const { request } = url.protocol === "https:" ? loadPackage<typeof import("node:https")>("node:https") : loadPackage<typeof import("node:http")>("node:http");
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    // Re-check at connect time too, in case the list was widened by a caller.
    const allowed = addresses.filter(({ address }) => !addressRefusal(hostname, address, options.policy));
    if (allowed.length === 0) {
      callback(new Error(`no permitted address for ${hostname}`), "", 4);
      return;
    }
    if (lookupOptions.all) callback(null, allowed);
    else callback(null, allowed[0]!.address, allowed[0]!.family);
  };
  return new Promise<IncomingMessage>((resolvePromise, reject) => {
    const req = request(
      url,
      {
        method: "GET",
        lookup,
        signal,
        agent: false,
        headers: {
          "user-agent": USER_AGENT,
          accept: options.accept ?? DEFAULT_ACCEPT,
          "accept-encoding": "gzip, deflate, br",
          "accept-language": "en;q=0.9, *;q=0.5",
        },
      },
      resolvePromise,
    );
    req.on("error", reject);
    req.end();
  });
}

/** The decompressed body, rejecting with `WebFetchError` once it passes `maxBytes`. */
async function readCapped(response: IncomingMessage, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(response.headers["content-length"]);
  const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase();
  const tooLarge = (): WebFetchError => new WebFetchError("failed", `Response larger than ${Math.round(maxBytes / (1024 * 1024))} MB; not downloaded`, url);
  if (!encoding && Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip" || encoding === "deflate" || encoding === "br") {
    const zlib = loadPackage<typeof import("node:zlib")>("node:zlib");
    const decoder = encoding === "br" ? zlib.createBrotliDecompress() : encoding === "deflate" ? zlib.createInflate() : zlib.createGunzip();
    response.on("error", (error) => decoder.destroy(error));
    stream = response.pipe(decoder);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > maxBytes) throw tooLarge();
      chunks.push(buffer);
    }
  } finally {
    if (total > maxBytes || !response.complete) response.destroy();
  }
  return Buffer.concat(chunks);
}
