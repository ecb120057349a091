/** Least time between two progress reports of one command (so at most ~3 per second). */
export const PROGRESS_INTERVAL_MS = 300;

/**
 * Leading- and trailing-edge throttle for progress reports: the first `poke` reports at once,
 * later ones at most once per `intervalMs`, and the last change of a burst is always reported
 * (a timer fires when the interval is over). After `stop()` nothing more is reported, so a
 * caller that stops before returning its result never sends progress after the result.
 * `report` errors are swallowed: progress is best effort.
 */
export class ProgressThrottle {
  private timer: NodeJS.Timeout | undefined;
  private last = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly report: () => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  /** Something changed; reports now or once the interval since the last report is over. */
  poke(): void {
    if (this.stopped || this.timer) return;
    const wait = this.last + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.fire();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, wait);
    this.timer.unref();
  }

  /** No more reports, pending or future. Idempotent. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    if (this.stopped) return;
    this.last = Date.now();
    try {
      this.report();
    } catch {
      // progress is best effort
    }
  }
}
