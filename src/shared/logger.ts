import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";

export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Process-wide logger. Writes to stderr and, once `logToFile` is called, to a log file.
 * Never writes to stdout: in ACP mode stdout carries JSON-RPC frames only.
 * Every line passes through the redactor installed with `setRedactor` before it is written.
 * Long values are cut before that: a message keeps MAX_MESSAGE_CHARS, a detail MAX_DETAIL_CHARS,
 * and every string inside a detail object MAX_VALUE_CHARS, each cut marked with the full length,
 * so one oversized field (a 1 MB parameter) never lands in the log whole.
 */
class Logger {
  private level: LogLevel = "info";
  private stderrEnabled = true;
  private stderrWatched = false;
  private file: WriteStream | undefined;
  private redact: (text: string) => string = (text) => text;

  configure(options: { level?: LogLevel; stderr?: boolean }): void {
    if (options.level) this.level = options.level;
    if (options.stderr !== undefined) this.stderrEnabled = options.stderr;
  }

  setRedactor(redact: (text: string) => string): void {
    this.redact = redact;
  }

  /** Appends to `path` (created with its folder, mode 0600). Errors opening it are reported once on stderr. */
  logToFile(path: string): void {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const stream = createWriteStream(path, { flags: "a", mode: 0o600 });
      stream.on("error", (error) => {
        if (this.stderrEnabled) this.writeStderr(`hermes: cannot write log file ${path}: ${error.message}\n`);
        this.file = undefined;
      });
      this.file = stream;
    } catch (error) {
      process.stderr.write(`hermes: cannot open log file ${path}: ${(error as Error).message}\n`);
    }
  }

  debug(message: string, detail?: unknown): void {
    this.write("debug", message, detail);
  }
  info(message: string, detail?: unknown): void {
    this.write("info", message, detail);
  }
  warn(message: string, detail?: unknown): void {
    this.write("warn", message, detail);
  }
  error(message: string, detail?: unknown): void {
    this.write("error", message, detail);
  }

  /** Flushes and closes the log file; resolves when written. */
  close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (!file) return Promise.resolve();
    return new Promise((resolve) => file.end(resolve));
  }

  private write(level: LogLevel, message: string, detail?: unknown): void {
    if (LEVEL_ORDER[level] < LEVEL_ORDER[this.level]) return;
    const suffix = detail === undefined ? "" : ` ${cut(formatDetail(detail), MAX_DETAIL_CHARS)}`;
    const line = this.redact(`${new Date().toISOString()} [${level.toUpperCase()}] ${cut(message, MAX_MESSAGE_CHARS)}${suffix}`) + "\n";
    if (this.stderrEnabled) this.writeStderr(line);
    this.file?.write(line);
  }

  /**
   * A failed write to stderr (EPIPE once the reader is gone, as when an editor dies) turns
   * stderr logging off instead of surfacing as an uncaught exception, whose report would fail
   * the same way, again and again; the log file keeps the record.
   */
  private writeStderr(line: string): void {
    if (!this.stderrWatched) {
      this.stderrWatched = true;
      process.stderr.on("error", () => {
        this.stderrEnabled = false;
      });
    }
    try {
      process.stderr.write(line);
    } catch {
      this.stderrEnabled = false;
    }
  }
}

/** Longest message logged whole. */
export const MAX_MESSAGE_CHARS = 4000;
/** Longest formatted detail (error stack, JSON) logged whole. */
export const MAX_DETAIL_CHARS = 8000;
/** Longest string inside a detail object logged whole. */
export const MAX_VALUE_CHARS = 1000;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length} chars, truncated]` : text;
}

function formatDetail(detail: unknown): string {
  if (detail instanceof Error) return detail.stack ?? detail.message;
  if (typeof detail === "string") return detail;
  try {
    return JSON.stringify(detail, (_key, value: unknown) => (typeof value === "string" ? cut(value, MAX_VALUE_CHARS) : value)) ?? String(detail);
  } catch {
    return String(detail);
  }
}

export const log = new Logger();
