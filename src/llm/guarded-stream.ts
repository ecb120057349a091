import { errorMessage } from "../shared/errors.js";
import type { ProviderEvent } from "./types.js";

type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;

/** Longest wait for the response headers of a model call (`model.connect_timeout`, 120 s). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 120_000;
/** Longest silence between two stream chunks (Hermes' stale-stream limit, 90 s). */
export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;

/** What every wire provider is built with (endpoint, key, time limits). */
export interface WireProviderOptions {
  id: string;
  /** The endpoint's base URL (each wire API says what it includes). */
  baseUrl: string;
  /** Never logged and never part of an error message. */
  apiKey: string;
  /** Extra headers on every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /**
   * Longest wait for the response headers (`model.connect_timeout`) before the call ends with a `timeout`
   * error (the loop retries it). Cancellable by the call's signal. Default 120 s.
   */
  connectTimeoutMs?: number;
  /** Older name of `connectTimeoutMs`; used when that is not set. */
  timeoutMs?: number;
  /**
   * Longest silence between two stream chunks (and between the headers and the first chunk) before the call
   * ends with a `timeout` error (the agent loop treats it as a stalled stream and retries). Default 90 s
   * (Hermes' stale-stream limit).
   */
  idleTimeoutMs?: number;
}

/** `connectTimeoutMs`, else its older name, else the default. */
export function connectTimeoutMs(options: WireProviderOptions): number {
  return options.connectTimeoutMs ?? options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
}

/**
 * The start every wire provider's call shares: its SDK client loaded (`load`), then a guarded stream
 * with the options' time limits. Answers the error event to yield instead when the SDK cannot be
 * loaded (named `sdkName`, the key redacted by `redact`) or the call was already cancelled. Never rejects.
 */
export async function openGuardedCall<L, T>(
  options: WireProviderOptions,
  sdkName: string,
  load: () => Promise<L>,
  signal: AbortSignal,
  redact: (text: string) => string,
): Promise<{ loaded: L; guard: GuardedStream<T> } | { failure: ErrorEvent }> {
  let loaded: L;
  try {
    loaded = await load();
  } catch (error) {
    return { failure: { type: "error", kind: "unknown", message: redact(`${options.id}: cannot load the ${sdkName} client: ${errorMessage(error)}`) } };
  }
  if (signal.aborted) return { failure: abortedEvent() };
  const guard = new GuardedStream<T>(signal, { connectMs: connectTimeoutMs(options), idleMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS });
  return { loaded, guard };
}

/** How a guarded stream ended. */
export type StreamOutcome =
  | { kind: "completed" }
  | { kind: "aborted" }
  | { kind: "connect_timeout" }
  | { kind: "idle" }
  | { kind: "failed"; error: unknown };

/** The two time limits of one model call. */
export interface StreamLimits {
  /** Longest wait from sending the request until `open` resolves (the response headers arrived). */
  connectMs: number;
  /** Longest wait for each chunk after that, the first one included. */
  idleMs: number;
}

/**
 * Iterates one model response stream under the caller's signal and two time limits: `open` (the
 * request, until the response headers) must resolve within `connectMs`, and after that every chunk
 * must arrive within `idleMs` of the previous one (or of the headers). When a limit passes, the
 * request is aborted and the outcome is `connect_timeout` or `idle`. The SDK call receives our own
 * signal (it follows the caller's); a caller's abort ends the wait for the headers at once, even if
 * the SDK does not honour its signal. Iteration never throws; `outcome` says how it ended. Cleanup
 * (timers, listener, the SDK's iterator, the HTTP request) always runs, also when the consumer stops
 * early (`return()` on the generator), so a consumer that stops reading releases the connection.
 */
export class GuardedStream<T> {
  outcome: StreamOutcome = { kind: "completed" };
  private readonly limits: StreamLimits;

  /** `limits` may be a number: the idle limit, with the default connect limit. */
  constructor(
    private readonly signal: AbortSignal,
    limits: number | Partial<StreamLimits>,
  ) {
    const given = typeof limits === "number" ? { idleMs: limits } : limits;
    this.limits = { connectMs: given.connectMs ?? DEFAULT_CONNECT_TIMEOUT_MS, idleMs: given.idleMs ?? DEFAULT_IDLE_TIMEOUT_MS };
  }

  async *chunks(open: (signal: AbortSignal) => Promise<AsyncIterable<T>>): AsyncGenerator<T> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    this.signal.addEventListener("abort", onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    let fired: "connect" | "idle" | undefined;
    const arm = (kind: "connect" | "idle", ms: number): void => {
      timer = setTimeout(() => {
        fired = kind;
        controller.abort();
      }, ms);
    };
    let iterator: AsyncIterator<T> | undefined;
    try {
      arm("connect", this.limits.connectMs);
      const stream = await untilAborted(open(controller.signal), controller.signal);
      clearTimeout(timer);
      iterator = stream[Symbol.asyncIterator]();
      for (;;) {
        if (controller.signal.aborted) break;
        arm("idle", this.limits.idleMs);
        const next = await iterator.next();
        clearTimeout(timer);
        if (next.done) break;
        yield next.value;
      }
    } catch (error) {
      if (!this.signal.aborted && !fired) this.outcome = { kind: "failed", error };
    } finally {
      clearTimeout(timer);
      this.signal.removeEventListener("abort", onAbort);
      controller.abort(streamDone());
      await iterator?.return?.().catch(() => undefined);
    }
    if (this.signal.aborted) this.outcome = { kind: "aborted" };
    else if (fired === "connect") this.outcome = { kind: "connect_timeout" };
    else if (fired === "idle") this.outcome = { kind: "idle" };
  }

  /**
   * The error event for how the stream ended, or undefined when it completed with a finish
   * reason. `classify` turns an SDK exception into an event; `finished` says whether the model
   * sent its finish reason (a stream that ends without one was cut).
   */
  failure(providerId: string, finished: boolean, classify: (error: unknown) => ErrorEvent): ErrorEvent | undefined {
    switch (this.outcome.kind) {
      case "aborted":
        return abortedEvent();
      case "connect_timeout":
        return { type: "error", kind: "timeout", message: `${providerId}: no response from the model within ${seconds(this.limits.connectMs)} (model.connect_timeout)` };
      case "idle":
        return { type: "error", kind: "timeout", message: `${providerId}: no data from the model for ${seconds(this.limits.idleMs)}` };
      case "failed":
        return classify(this.outcome.error);
      default:
        return finished ? undefined : { type: "error", kind: "network", message: `${providerId}: the stream ended before the model finished` };
    }
  }
}

export function abortedEvent(): ErrorEvent {
  return { type: "error", kind: "aborted", message: "request aborted" };
}

function seconds(ms: number): string {
  return ms < 1_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

let done: DOMException | undefined;

/**
 * The reason the request's own signal is aborted with once its stream is over (what is still
 * open, such as the socket, is let go): the AbortError `abort()` would make, made once, as a new
 * one per call costs a stack trace per model call.
 */
function streamDone(): DOMException {
  return (done ??= new DOMException("This operation was aborted", "AbortError"));
}

/** `promise`, or a rejection as soon as `signal` fires (whichever comes first). */
function untilAborted<V>(promise: Promise<V>, signal: AbortSignal): Promise<V> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new Error("aborted"));
  }
  return new Promise<V>((resolve, reject) => {
    const onAbort = (): void => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The SDK's own header timeout: a backstop a little behind the guard's connect limit, so the
 * guard's clearer message wins whenever both would fire.
 */
export function sdkTimeoutMs(connectMs: number): number {
  return connectMs + 5_000;
}
