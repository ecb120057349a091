import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MAX_WINDOW, MIN_WINDOW } from "../llm/error-wording.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";

/**
 * Context windows learned from providers' errors ("maximum context length is 8192 tokens"), by
 * provider id and model: kept in memory for the process and in `$HERMES_HOME/cache/context_lengths.json`
 * (`{ "<provider>": { "<model>": tokens } }`), so the next session starts with them. Where they rank:
 * `model.context_length` in config.yaml wins over a learned window, which wins over the provider's
 * model list and the built-in table (the runtime puts this cache in front of the catalog lookup).
 *
 * The file is read on first use, never at start-up; a missing file is empty, a broken one (or one
 * past `MAX_CACHE_FILE_BYTES`) is ignored with a log line (and replaced on the next write). Only
 * windows from `MIN_WINDOW` to `MAX_WINDOW` tokens (error-wording.ts) are learned or read: anything
 * else is not a real window, and would make every later session of that model compress at once. Writes re-read the file, merge and
 * replace it atomically (a temp file renamed over it), so two processes lose at most each other's
 * latest entry, never the file. Nothing here throws.
 */
export class ContextLengthCache {
  private windows: Map<string, Map<string, number>> | undefined;

  constructor(readonly file: string) {}

  /** The learned window of `model` at `provider`, or undefined. */
  get(provider: string, model: string): number | undefined {
    return this.loaded().get(provider)?.get(model);
  }

  /**
   * Remembers `tokens` as the window of `model` at `provider` (an integer within the bounds above;
   * anything else is ignored) and writes the file at once. A failing write is logged (its temp file
   * removed); the window stays known to this process.
   */
  learn(provider: string, model: string, tokens: number): void {
    if (!isWindow(tokens)) return;
    if (this.get(provider, model) === tokens) return;
    setWindow(this.loaded(), provider, model, tokens);
    log.info(`learned context window of ${provider}:${model}: ${tokens} tokens`);
    const temp = join(dirname(this.file), `.context_lengths.${process.pid}.${Date.now()}.tmp`);
    try {
      const merged = readFile(this.file) ?? new Map<string, Map<string, number>>();
      setWindow(merged, provider, model, tokens);
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      writeFileSync(temp, `${JSON.stringify(toJson(merged), null, 2)}\n`, { mode: 0o600 });
      renameSync(temp, this.file);
    } catch (error) {
      log.warn(`could not save the learned context window to ${this.file}: ${errorMessage(error)}`);
      rmSync(temp, { force: true });
    }
  }

  private loaded(): Map<string, Map<string, number>> {
    this.windows ??= readFile(this.file) ?? new Map();
    return this.windows;
  }
}

/** A cache file larger than this is not ours (a few hundred models take a few kB): it is ignored. */
export const MAX_CACHE_FILE_BYTES = 1024 * 1024;

/** The cache's path under a Hermes home. */
export function contextLengthCacheFile(home: string): string {
  return join(home, "cache", "context_lengths.json");
}

function setWindow(windows: Map<string, Map<string, number>>, provider: string, model: string, tokens: number): void {
  let models = windows.get(provider);
  if (!models) windows.set(provider, (models = new Map()));
  models.set(model, tokens);
}

/** The file's windows; undefined when missing; a broken or oversized file is logged and read as empty. */
function readFile(file: string): Map<string, Map<string, number>> | undefined {
  let text: string;
  try {
    const fd = openSync(file, "r");
    try {
      const size = fstatSync(fd).size;
      if (size > MAX_CACHE_FILE_BYTES) {
        log.warn(`ignoring ${file} (learned context windows): ${size} bytes, more than ${MAX_CACHE_FILE_BYTES}`);
        return new Map();
      }
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") log.warn(`ignoring ${file}: ${errorMessage(error)}`);
    return undefined;
  }
  const windows = new Map<string, Map<string, number>>();
  try {
    const data: unknown = JSON.parse(text);
    if (!isRecord(data)) throw new Error("not a JSON object");
    for (const [provider, models] of Object.entries(data)) {
      if (!isRecord(models)) continue;
      for (const [model, tokens] of Object.entries(models)) {
        if (isWindow(tokens)) setWindow(windows, provider, model, tokens);
      }
    }
  } catch (error) {
    log.warn(`ignoring ${file} (learned context windows): ${errorMessage(error)}`);
    return new Map();
  }
  return windows;
}

function toJson(windows: Map<string, Map<string, number>>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [provider, models] of windows) out[provider] = Object.fromEntries(models);
  return out;
}

/** A plausible context window: an integer from MIN_WINDOW to MAX_WINDOW tokens. */
function isWindow(tokens: unknown): tokens is number {
  return typeof tokens === "number" && Number.isSafeInteger(tokens) && tokens >= MIN_WINDOW && tokens <= MAX_WINDOW;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
