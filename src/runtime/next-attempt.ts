/**
 * The one store attempt a recorder has pending, if any: in a microtask (`now`: after the current
 * synchronous run, before any I/O or timer), on the next event-loop turn (`after(0)`), or after a
 * delay (an unref'd timer, so a retry never holds the process open). Scheduling replaces what was
 * pending, except that `now` keeps a pending microtask. `run` is called once per scheduling that
 * was not cancelled or replaced; it must not throw.
 */
export class NextAttempt {
  private cancelPending: (() => void) | undefined;
  private inMicrotask = false;

  constructor(private readonly run: () => void) {}

  /** An attempt is pending. */
  get pending(): boolean {
    return this.cancelPending !== undefined;
  }

  /** An attempt in a microtask, replacing a later one. */
  now(): void {
    if (this.inMicrotask) return;
    this.cancel();
    let cancelled = false;
    queueMicrotask(() => {
      if (!cancelled) this.fire();
    });
    this.cancelPending = () => {
      cancelled = true;
    };
    this.inMicrotask = true;
  }

  /** An attempt after `delayMs` (0: on the next event-loop turn), replacing what was pending. */
  after(delayMs: number): void {
    this.cancel();
    if (delayMs <= 0) {
      const immediate = setImmediate(() => this.fire());
      this.cancelPending = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(() => this.fire(), delayMs).unref();
      this.cancelPending = () => clearTimeout(timer);
    }
  }

  cancel(): void {
    this.cancelPending?.();
    this.cancelPending = undefined;
    this.inMicrotask = false;
  }

  private fire(): void {
    this.cancelPending = undefined;
    this.inMicrotask = false;
    this.run();
  }
}
