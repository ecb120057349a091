import type { DelegateProgress } from "./details.js";

/** Lines kept in a progress report. */
export const PROGRESS_LINES = 40;
/** At most this often (ms) a report goes out while lines keep coming. */
export const PROGRESS_INTERVAL_MS = 250;

/**
 * Collects children's progress lines and reports them at most every PROGRESS_INTERVAL_MS (the
 * first at once), each report carrying the latest PROGRESS_LINES lines. `stop` cancels a pending
 * report; nothing is reported after it (a tool must not report once it has settled). Never throws
 * (a throwing `report` is swallowed).
 */
export class ProgressFeed {
  private readonly lines: string[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly report: (progress: DelegateProgress) => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  push(line: string): void {
    if (this.stopped) return;
    this.lines.push(line);
    if (this.lines.length > PROGRESS_LINES) {
      this.dropped += this.lines.length - PROGRESS_LINES;
      this.lines.splice(0, this.lines.length - PROGRESS_LINES);
    }
    if (this.timer) return;
    const wait = this.lastAt + this.intervalMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.lastAt = this.now();
    try {
      this.report({ lines: [...this.lines], dropped: this.dropped });
    } catch {
      // a front end's failure to show progress is not the tool's
    }
  }
}
