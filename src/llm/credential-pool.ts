/**
 * A credential pool: several API keys of one endpoint behind one `Provider` (Hermes' multi-key
 * rotation, reference §7.2 step 3). Each key gets its own wire provider, built on the key's first use.
 *
 * A call goes to the first key that is not resting. When that key's stream ends with a rate limit, an
 * auth failure or a quota / billing error (`rotatesKey`) before the stream yielded anything, the key
 * rests (`restMs`) and the same request goes at once to the next key not resting and not yet tried by
 * this call; once every key has been tried, the last error goes out unchanged but for a note on the
 * pool, and the agent loop's own retries and fallbacks take over. A call made while every key rests
 * uses the key whose rest ends first (the pool then behaves like that one key). A failure after the
 * stream yielded something is passed on as it is: what was shown cannot be taken back by another key.
 *
 * Keys never appear in a log line or an event: the pool names a key by its position ("key 2 of 3").
 */
import { registerSecret } from "../config/redact.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import type { ModelRequest, Provider, ProviderEvent } from "./types.js";

type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;

/** How long a rate-limited key rests when the server sent no `Retry-After`. */
export const RATE_LIMIT_REST_MS = 60_000;
/** How long a key rests after the server rejected it (auth) or said its quota or credit is spent. */
export const CREDENTIAL_REST_MS = 60 * 60_000;

/** Server wording of a spent quota, credit or balance (as opposed to a short-term rate limit). */
const QUOTA_WORDING = /quota|billing|insufficient|credit|balance|payment|exceeded your current|spend(ing)? limit/i;

/**
 * A quota or billing failure: HTTP 402, or a 429 / 403 whose message speaks of quota, billing, credit,
 * balance or payment ("You exceeded your current quota", "insufficient_quota", "Insufficient credits").
 * Such a key will not recover in seconds; another key or another provider may. Pure.
 */
export function isQuotaError(error: { status?: number | undefined; message: string }): boolean {
  if (error.status === 402) return true;
  return (error.status === 429 || error.status === 403) && QUOTA_WORDING.test(error.message);
}

/** Whether `error` is about this key (rate limit, auth, quota), so the next key may succeed. Pure. */
export function rotatesKey(error: ErrorEvent): boolean {
  return error.kind === "rate_limit" || error.kind === "auth" || isQuotaError(error);
}

/**
 * How long the key that got `error` rests: a quota or auth failure `CREDENTIAL_REST_MS`; a rate limit
 * the server's `Retry-After` when it sent one, else `RATE_LIMIT_REST_MS`. Pure.
 */
export function restMs(error: ErrorEvent): number {
  if (error.kind === "auth" || isQuotaError(error)) return CREDENTIAL_REST_MS;
  const retryAfter = error.retryAfterMs;
  return retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : RATE_LIMIT_REST_MS;
}

export interface CredentialPoolOptions {
  /** The provider id (as every key's provider has it), also named in log lines. */
  id: string;
  /** The pool's keys in order, the preferred first; duplicates and empty strings are dropped. At least one. */
  keys: readonly string[];
  /**
   * Builds the wire provider for one key; called once per key, on its first use (a wire module may load
   * then). A throw or rejection ends that call with an `unknown` error event naming the provider only.
   */
  create: (apiKey: string) => Provider | Promise<Provider>;
  /** The clock for rests (ms). Default: `Date.now`. */
  now?: () => number;
}

/** A `Provider` that is also a credential pool: which keys rest, for `--check` style reports and tests. */
export interface CredentialPool extends Provider {
  /** Number of keys in the pool. */
  readonly size: number;
  /** For each key by position, the ms its rest still lasts (0 = usable now). Never contains a key. */
  resting(): number[];
}

/**
 * A provider over `keys` (see the module doc). `stream` keeps the `Provider` contract: it never throws,
 * and ends with exactly one `done` or `error` event. Throws (at construction) only when `keys` holds
 * no usable key, which is a programming error.
 */
export function createCredentialPool(options: CredentialPoolOptions): CredentialPool {
  const keys = [...new Set(options.keys.filter((key) => key !== ""))];
  if (keys.length === 0) throw new Error("a credential pool needs at least one key");
  for (const key of keys) registerSecret(key);
  const now = options.now ?? Date.now;
  const providers: (Promise<Provider> | undefined)[] = keys.map(() => undefined);
  const restUntil: number[] = keys.map(() => 0);
  const name = (index: number): string => `key ${index + 1} of ${keys.length}`;
  /** The key's provider; a failed build is forgotten, so the next call tries again. */
  const providerAt = (index: number): Promise<Provider> => {
    const existing = providers[index];
    if (existing) return existing;
    const created = (async () => options.create(keys[index] as string))();
    providers[index] = created;
    created.catch(() => {
      providers[index] = undefined;
    });
    return created;
  };
  /** The first key not resting and not tried; undefined when there is none. */
  const nextUsable = (tried: ReadonlySet<number>): number | undefined => {
    const at = now();
    const index = restUntil.findIndex((until, i) => !tried.has(i) && until <= at);
    return index < 0 ? undefined : index;
  };
  /** The key whose rest ends first (the first of equals). */
  const soonest = (): number => restUntil.reduce((best, until, i) => (until < (restUntil[best] ?? Infinity) ? i : best), 0);

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const tried = new Set<number>();
    let index = nextUsable(tried);
    if (index === undefined) {
      index = soonest();
      log.info(`${options.id}: every key of the credential pool is resting; trying ${name(index)}, whose rest ends first`);
    }
    for (;;) {
      tried.add(index);
      let yielded = false;
      let failure: ErrorEvent | undefined;
      let provider: Provider;
      try {
        provider = await providerAt(index);
      } catch (error) {
        log.error(`${options.id}: cannot build the provider for ${name(index)}`, errorMessage(error));
        yield { type: "error", kind: "unknown", message: `${options.id}: the provider could not be loaded` };
        return;
      }
      for await (const event of provider.stream(request, signal)) {
        if (event.type === "error" && !yielded && !signal.aborted && rotatesKey(event)) {
          failure = event;
          break;
        }
        yielded = true;
        yield event;
      }
      if (!failure) return;
      const rest = restMs(failure);
      restUntil[index] = now() + rest;
      const why = `${isQuotaError(failure) ? "quota or billing" : failure.kind === "auth" ? "rejected" : "rate-limited"}${failure.status !== undefined ? ` (HTTP ${failure.status})` : ""}`;
      const next = nextUsable(tried);
      if (next === undefined) {
        log.warn(`${options.id}: ${name(index)} ${why}, resting ${seconds(rest)}; no other key of the pool is usable now`);
        yield keys.length > 1 ? { ...failure, message: `${failure.message} (all ${keys.length} keys of the credential pool are resting)` } : failure;
        return;
      }
      log.warn(`${options.id}: ${name(index)} ${why}, resting ${seconds(rest)}; trying ${name(next)}`);
      index = next;
    }
  }

  return {
    id: options.id,
    size: keys.length,
    stream,
    resting: () => {
      const at = now();
      return restUntil.map((until) => Math.max(0, until - at));
    },
  };
}

function seconds(ms: number): string {
  const total = Math.round(ms / 1000);
  return total >= 120 ? `${Math.round(total / 60)} min` : `${total} s`;
}
