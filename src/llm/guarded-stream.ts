import type { ProviderEvent } from "./types.js";

type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;

/** How a guarded stream ended. */
export type StreamOutcome = { kind: "completed" } | { kind: "aborted" } | { kind: "idle" } | { kind: "failed"; error: unknown };

/**
 * Iterates one model response stream under the caller's signal and an idle limit: when no chunk
 * arrives for `idleMs` the request is aborted and the outcome is `idle`. The SDK call receives
 * our own signal (it follows the caller's). Iteration never throws; `outcome` says how it ended.
 * Cleanup (timer, listener, the SDK's iterator) always runs, also when the consumer stops early.
 */
export class GuardedStream<T> {
  outcome: StreamOutcome = { kind: "completed" };

  constructor(
    private readonly signal: AbortSignal,
    private readonly idleMs: number,
  ) {}

  async *chunks(open: (signal: AbortSignal) => Promise<AsyncIterable<T>>): AsyncGenerator<T> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    this.signal.addEventListener("abort", onAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    let idleFired = false;
    let iterator: AsyncIterator<T> | undefined;
    try {
      iterator = (await open(controller.signal))[Symbol.asyncIterator]();
      for (;;) {
        if (this.signal.aborted) break;
        idleTimer = setTimeout(() => {
          idleFired = true;
          controller.abort();
        }, this.idleMs);
        const next = await iterator.next();
        clearTimeout(idleTimer);
        if (next.done) break;
        yield next.value;
      }
    } catch (error) {
      if (!this.signal.aborted && !idleFired) this.outcome = { kind: "failed", error };
    } finally {
      clearTimeout(idleTimer);
      this.signal.removeEventListener("abort", onAbort);
      controller.abort();
      await iterator?.return?.().catch(() => undefined);
    }
    if (this.signal.aborted) this.outcome = { kind: "aborted" };
    else if (idleFired) this.outcome = { kind: "idle" };
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
      case "idle":
        return { type: "error", kind: "timeout", message: `${providerId}: no data from the model for ${Math.round(this.idleMs / 1000)} s` };
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
