import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";

export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Process-wide logger. Writes to stderr and, once `logToFile` is called, to a log file.
 * Never writes to stdout: in ACP mode stdout carries JSON-RPC frames only.
 * Every line passes through the redactor installed with `setRedactor` before it is written.
 */
class Logger {
  private level: LogLevel = "info";
  private stderrEnabled = true;
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
        process.stderr.write(`hermes: cannot write log file ${path}: ${error.message}\n`);
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
    const suffix = detail === undefined ? "" : ` ${formatDetail(detail)}`;
    const line = this.redact(`${new Date().toISOString()} [${level.toUpperCase()}] ${message}${suffix}`) + "\n";
    if (this.stderrEnabled) process.stderr.write(line);
    this.file?.write(line);
  }
}

function formatDetail(detail: unknown): string {
  if (detail instanceof Error) return detail.stack ?? detail.message;
  if (typeof detail === "string") return detail;
  try {
    return JSON.stringify(detail);
  } catch {
    return String(detail);
  }
}

export const log = new Logger();
