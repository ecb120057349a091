/**
 * The curated memory Hermes shares across sessions and programs: `$HERMES_HOME/memories/MEMORY.md`
 * (the agent's notes) and `USER.md` (the user's profile), each a list of entries joined by a line
 * holding `§` — the same files, format and limits Python Hermes uses, so both share one memory.
 *
 * A write holds Python Hermes' lock — flock(2) on `<file>.lock`, taken through util-linux `flock`
 * (src/shared/flock.ts) — and then `<file>.acp-lock` (an exclusive lock file between hermes-acp
 * processes, which is all there is where no `flock` program exists), re-reads the file (another
 * session or Hermes may have written it), is checked against the target's character budget as a
 * whole, and replaces the file atomically (temp file + rename), so a reader sees the old or the
 * new file, never half of one. A file that does not
 * round-trip through the entry format (edited by hand, appended by a shell) is never rewritten by
 * a replace or remove: it is copied to `<file>.bak.<time>` and the write is refused; one longer
 * than the tool reads (MAX_FILE_BYTES) is never rewritten at all. Entries are scanned one by one
 * and, for what a change brings, read together (an instruction or secret split across entries).
 *
 * Errors: the functions return results for the model (`MemoryResult`); they throw only for an
 * unwritable memory folder (Error naming the file).
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FlockBusyError, FlockStoppedError, holdFlock } from "../../shared/flock.js";
import { findThreat, threatReason } from "./threats.js";

export type MemoryTarget = "memory" | "user";
export type MemoryAction = "add" | "replace" | "remove";
export interface MemoryOperation {
  action: MemoryAction;
  content?: string;
  old_text?: string;
}

/** Character budgets (Hermes' `memory.memory_char_limit` / `memory.user_char_limit` defaults). */
export const DEFAULT_LIMITS: Readonly<Record<MemoryTarget, number>> = { memory: 2200, user: 1375 };
/** What separates entries in the files. */
export const ENTRY_DELIMITER = "\n§\n";

const FILES: Readonly<Record<MemoryTarget, string>> = { memory: "MEMORY.md", user: "USER.md" };
/** More of a memory file than this is never read (a legitimate one is a few KB); a longer one is never rewritten. */
const MAX_FILE_BYTES = 1_048_576;
const LOCK_WAIT_MS = 2000;
const LOCK_STALE_MS = 10_000;

export type MemoryResult =
  | { ok: true; message: string; target: MemoryTarget; used: number; limit: number; entries: number }
  | { ok: false; error: string; target: MemoryTarget; used: number; limit: number; currentEntries?: string[]; matches?: string[] };

export class MemoryFiles {
  constructor(
    /** `$HERMES_HOME/memories`. */
    readonly dir: string,
    private readonly limits: Readonly<Record<MemoryTarget, number>> = DEFAULT_LIMITS,
  ) {}

  path(target: MemoryTarget): string {
    return join(this.dir, FILES[target]);
  }

  limit(target: MemoryTarget): number {
    return this.limits[target];
  }

  /** The entries of `target` as stored now (deduplicated, in order). Throws MemoryReadError when the file exists but cannot be read. */
  entries(target: MemoryTarget): string[] {
    return parseEntries(this.read(target));
  }

  /**
   * Applies `operations` to `target` all or nothing, against the final budget only (a batch may
   * free room and add in one call). An add of an existing entry is skipped; replace and remove
   * name their entry by a unique substring (`old_text`).
   */
  async apply(target: MemoryTarget, operations: readonly MemoryOperation[]): Promise<MemoryResult> {
    let release: (() => void) | undefined;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      release = await holdFlock(`${this.path(target)}.lock`, LOCK_WAIT_MS);
      return this.withLock(target, () => this.applyLocked(target, operations));
    } catch (error) {
      if (error instanceof FlockBusyError) return { ok: false, error: `memory is busy (${error.path} is held by another program, e.g. Python Hermes); retry the call`, target, used: 0, limit: this.limit(target) };
      if (error instanceof FlockStoppedError) return { ok: false, error: `memory was not changed: ${error.message}; retry the call`, target, used: 0, limit: this.limit(target) };
      if (error instanceof MemoryReadError) return { ok: false, error: error.message, target, used: 0, limit: this.limit(target) };
      throw error;
    } finally {
      release?.();
    }
  }

  private applyLocked(target: MemoryTarget, operations: readonly MemoryOperation[]): MemoryResult {
    const limit = this.limit(target);
    if (operations.length === 0) return this.failure(target, "No operation given: pass action + content/old_text, or operations: [...].");
    for (const [index, op] of operations.entries()) {
      const threat = op.action !== "remove" && op.content ? findThreat(op.content) : undefined;
      if (threat) return this.failure(target, `${label(operations, index)}: ${threat}`);
      if (op.content?.includes(ENTRY_DELIMITER.trim())) return this.failure(target, `${label(operations, index)}: content may not contain a line with § (it separates entries).`);
    }
    const { text: raw, whole } = this.readFile(target);
    // what lies past the part read would be lost by any rewrite, an add included
    if (!whole) return this.failure(target, `Refusing to change ${FILES[target]}: it is larger than the memory tool reads (${MAX_FILE_BYTES.toLocaleString("en-US")} bytes), so it was not written by it, and rewriting it would lose the rest. Nothing was changed; shorten the file by hand, then retry.`);
    const rewrites = operations.some((op) => op.action !== "add");
    if (rewrites && drifted(raw, limit)) return this.driftFailure(target, raw);
    const working = parseEntries(raw);
    for (const [index, op] of operations.entries()) {
      const at = label(operations, index);
      const content = op.content?.trim() ?? "";
      const oldText = op.old_text?.trim() ?? "";
      if (op.action === "add") {
        if (!content) return this.failure(target, batchError(operations, `${at}: content is required.`));
        if (!working.includes(content)) working.push(content);
        else if (operations.length === 1) return this.success(target, "Entry already exists (no duplicate added).", working);
        continue;
      }
      if (!oldText) {
        return this.failure(target, batchError(operations, `${at}: needs old_text — a short unique substring of the entry to ${op.action}. Reissue it with old_text set to part of one of the current_entries.`));
      }
      if (op.action === "replace" && !content) return this.failure(target, batchError(operations, `${at}: content is required (use remove to delete an entry).`));
      // A blocked entry is named by its placeholder (the model never sees its text).
      const matches = working.flatMap((entry, position) => (entry.includes(oldText) || (displayEntry(entry) !== entry && displayEntry(entry).includes(oldText)) ? [position] : []));
      if (matches.length === 0) return this.failure(target, batchError(operations, `${at}: no entry matched '${oldText}'. Check current_entries and retry with text from the entry.`));
      if (new Set(matches.map((position) => working[position])).size > 1) {
        return { ...this.failure(target, batchError(operations, `${at}: '${oldText}' matched several entries; be more specific.`)), matches: matches.map((position) => preview(displayEntry(working[position]!))) };
      }
      if (op.action === "replace") working[matches[0]!] = content;
      else working.splice(matches[0]!, 1);
    }
    const split = splitThreat(parseEntries(raw), working);
    if (split) return this.failure(target, batchError(operations, split));
    const used = size(working);
    if (used > limit) {
      return {
        ...this.failure(target, `Memory would be at ${used.toLocaleString("en-US")}/${limit.toLocaleString("en-US")} chars, over the limit. Remove or shorten entries (see current_entries) and add in the same call: operations: [{action: "remove", old_text}, …, {action: "add", content}].`),
      };
    }
    this.write(target, working);
    const message = operations.length === 1 ? { add: "Entry added.", replace: "Entry replaced.", remove: "Entry removed." }[operations[0]!.action] : `Applied ${operations.length} operations.`;
    return this.success(target, message, working);
  }

  private success(target: MemoryTarget, message: string, entries: readonly string[]): MemoryResult {
    return { ok: true, message, target, used: size(entries), limit: this.limit(target), entries: entries.length };
  }

  /** The file's text as `readFile` gives it (its first MAX_FILE_BYTES when it is longer). */
  private read(target: MemoryTarget): string {
    return this.readFile(target).text;
  }

  /**
   * The file's text, line endings normalized (Python Hermes on Windows writes CRLF), a BOM dropped,
   * at most its first MAX_FILE_BYTES (`whole` false when there is more: a huge file is never
   * loaded whole). "" when it does not exist; MemoryReadError when it exists but cannot be read
   * (never treated as empty: a write would replace what it holds).
   */
  private readFile(target: MemoryTarget): { text: string; whole: boolean } {
    const file = this.path(target);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { text: "", whole: true };
      throw new MemoryReadError(`cannot read ${file}: ${(error as Error).message}; memory is left unchanged`);
    }
    const buffer = Buffer.allocUnsafe(MAX_FILE_BYTES + 1);
    let length = 0;
    try {
      for (let read = -1; read !== 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, null);
    } catch (error) {
      throw new MemoryReadError(`cannot read ${file}: ${(error as Error).message}; memory is left unchanged`);
    } finally {
      closeSync(fd);
    }
    const whole = length <= MAX_FILE_BYTES;
    const text = buffer.subarray(0, Math.min(length, MAX_FILE_BYTES)).toString("utf8");
    return { text: text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n"), whole };
  }

  /**
   * Replaces the file atomically: a temp file beside the real file (a symlinked MEMORY.md is
   * written through, the link kept — a dangling link too, creating the file it points to), flushed
   * to disk, renamed over it; a file that cannot be renamed over (a single-file bind mount) is
   * overwritten in place.
   */
  private write(target: MemoryTarget, entries: readonly string[]): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    let path = this.path(target);
    try {
      path = realpathSync(path);
    } catch {
      // not there yet: created at its own path, or where a dangling link points (the link is kept)
      path = linkTarget(path) ?? path;
    }
    const text = entries.join(ENTRY_DELIMITER);
    const temp = join(dirname(path), `.${FILES[target]}.${process.pid}.${Date.now()}.tmp`);
    try {
      const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        // writeFileSync on a descriptor writes until every byte is out or throws (ENOSPC, EFBIG);
        // a bare writeSync may stop short, and the short file would replace the whole one.
        writeFileSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EXDEV" || code === "EBUSY") {
        writeFileSync(path, text);
        return;
      }
      throw new Error(`cannot write ${path}: ${(error as Error).message}`);
    }
  }

  /** Runs `body` holding `<file>.acp-lock` (waits up to LOCK_WAIT_MS; a lock older than LOCK_STALE_MS is taken over). */
  private withLock<T>(target: MemoryTarget, body: () => T): T {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lock = `${this.path(target)}.acp-lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      try {
        closeSync(openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") break; // cannot lock (read-only): the write reports the real error
        if (lockAge(lock) > LOCK_STALE_MS) rmSync(lock, { force: true });
        else if (Date.now() > deadline) throw new MemoryReadError(`memory is busy (${lock} is held by another session); retry the call`);
        else Atomics.wait(pause, 0, 0, 5);
      }
    }
    try {
      return body();
    } finally {
      rmSync(lock, { force: true });
    }
  }

  private failure(target: MemoryTarget, error: string): Extract<MemoryResult, { ok: false }> {
    const stored = this.entries(target);
    return { ok: false, error, target, used: size(stored), limit: this.limit(target), currentEntries: stored.map(displayEntry) };
  }

  private driftFailure(target: MemoryTarget, raw: string): MemoryResult {
    const backup = `${this.path(target)}.bak.${Math.floor(Date.now() / 1000)}`;
    let saved = backup;
    try {
      writeFileSync(backup, raw, { mode: 0o600 });
    } catch {
      saved = `${backup} (the copy failed; the file is unchanged)`;
    }
    return this.failure(
      target,
      `Refusing to rewrite ${FILES[target]}: it holds text the memory tool did not write (a manual edit or another program). A copy is at ${saved}. Rewrite the file as §-separated entries, or add the missing entries one by one, then retry.`,
    );
  }
}

/** Entries of a file's text: split on the delimiter, trimmed, empty ones dropped, duplicates removed. */
export function parseEntries(raw: string): string[] {
  return [...new Set(raw.split(ENTRY_DELIMITER).map((entry) => entry.trim()).filter(Boolean))];
}

/** Characters (code points, as Python counts them) the entries take in the file. */
export function size(entries: readonly string[]): number {
  return entries.length === 0 ? 0 : codePoints(entries.join(ENTRY_DELIMITER));
}

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** A file the tool would not write back as it is: not in the entry format, or one entry over the whole budget. */
function drifted(raw: string, limit: number): boolean {
  if (!raw.trim()) return false;
  const entries = raw.split(ENTRY_DELIMITER).map((entry) => entry.trim()).filter(Boolean);
  return entries.join(ENTRY_DELIMITER) !== raw.trim() || entries.some((entry) => codePoints(entry) > limit);
}

/**
 * Why `after` may not be stored although each entry passes on its own: read one after another (as
 * the system prompt shows them) they form an instruction, hidden markup or a secret split across
 * entries. Only a finding this change brings counts (`before` is what the file held), so a file
 * another program left that way can still be cleaned up.
 */
function splitThreat(before: readonly string[], after: readonly string[]): string | undefined {
  const reading = (entries: readonly string[]): string | undefined => threatReason(entries.map(displayEntry).join("\n"), "memory");
  const found = reading(after);
  if (!found || found === reading(before)) return undefined;
  return `Refused: read together with the entries around it, memory would look unsafe (${found}). Keep each fact whole in one entry; memory holds facts, not instructions or secrets.`;
}

/** An entry as the model may see it again: one that looks like an injection is shown blocked. */
export function displayEntry(entry: string): string {
  const threat = findThreat(entry);
  return threat ? `[BLOCKED: ${threat} Remove it with memory(action="remove") and old_text set to part of this notice.]` : entry;
}

function preview(entry: string): string {
  const points = [...entry];
  return points.length > 80 ? `${points.slice(0, 80).join("")}...` : entry;
}

/** A batch names that nothing was applied. */
function batchError(operations: readonly MemoryOperation[], message: string): string {
  return operations.length > 1 ? `${message} No operations were applied (a batch is all or nothing).` : message;
}

/** Where the symbolic link `path` points (resolved against its folder), undefined when it is no link. */
function linkTarget(path: string): string | undefined {
  try {
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}

function lockAge(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** The memory file exists but cannot be read, or stays locked: the call fails, nothing is written. */
export class MemoryReadError extends Error {}

function label(operations: readonly MemoryOperation[], index: number): string {
  return operations.length === 1 ? operations[0]!.action : `Operation ${index + 1} (${operations[index]!.action})`;
}
