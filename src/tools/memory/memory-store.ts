/**
 * The curated memory Hermes shares across sessions and programs: `$HERMES_HOME/memories/MEMORY.md`
 * (the agent's notes) and `USER.md` (the user's profile), each a list of entries joined by a line
 * holding `§` — the same files, format and limits Python Hermes uses, so both share one memory.
 *
 * Writes re-read the file first (another session or Hermes may have written it), are checked
 * against the target's character budget as a whole, and replace the file atomically (temp file +
 * rename), so a reader sees the old or the new file, never half of one. A file that does not
 * round-trip through the entry format (edited by hand, appended by a shell) is never rewritten by
 * a replace or remove: it is copied to `<file>.bak.<time>` and the write is refused.
 *
 * Errors: the functions return results for the model (`MemoryResult`); they throw only for an
 * unwritable memory folder (Error naming the file).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findThreat } from "./threats.js";

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

  /** The entries of `target` as stored now (deduplicated, in order). Never throws: unreadable = none. */
  entries(target: MemoryTarget): string[] {
    return parseEntries(this.read(target));
  }

  /**
   * Applies `operations` to `target` all or nothing, against the final budget only (a batch may
   * free room and add in one call). An add of an existing entry is skipped; replace and remove
   * name their entry by a unique substring (`old_text`).
   */
  apply(target: MemoryTarget, operations: readonly MemoryOperation[]): MemoryResult {
    const limit = this.limit(target);
    if (operations.length === 0) return this.failure(target, "No operation given: pass action + content/old_text, or operations: [...].");
    for (const [index, op] of operations.entries()) {
      const threat = op.action !== "remove" && op.content ? findThreat(op.content) : undefined;
      if (threat) return this.failure(target, `${label(operations, index)}: ${threat}`);
    }
    const raw = this.read(target);
    const rewrites = operations.some((op) => op.action !== "add");
    if (rewrites && drifted(raw, limit)) return this.driftFailure(target, raw);
    const working = parseEntries(raw);
    for (const [index, op] of operations.entries()) {
      const at = label(operations, index);
      const content = op.content?.trim() ?? "";
      const oldText = op.old_text?.trim() ?? "";
      if (op.action === "add") {
        if (!content) return this.failure(target, `${at}: content is required.`, working);
        if (!working.includes(content)) working.push(content);
        continue;
      }
      if (!oldText) return this.failure(target, `${at}: old_text is required — a short unique substring of the entry to ${op.action}.`, working);
      if (op.action === "replace" && !content) return this.failure(target, `${at}: content is required (use remove to delete an entry).`, working);
      const matches = working.flatMap((entry, position) => (entry.includes(oldText) ? [position] : []));
      if (matches.length === 0) return this.failure(target, `${at}: no entry matched '${oldText}'. Check current_entries and retry with text from the entry.`, working);
      if (new Set(matches.map((position) => working[position])).size > 1) {
        return { ...this.failure(target, `${at}: '${oldText}' matched several entries; be more specific.`), matches: matches.map((position) => preview(working[position]!)) };
      }
      if (op.action === "replace") working[matches[0]!] = content;
      else working.splice(matches[0]!, 1);
    }
    const used = size(working);
    if (used > limit) {
      const now = size(parseEntries(raw));
      return {
        ...this.failure(target, `Memory would be at ${used.toLocaleString("en-US")}/${limit.toLocaleString("en-US")} chars, over the limit. Remove or shorten entries (see current_entries) and add in the same call: operations: [{action: "remove", old_text}, …, {action: "add", content}].`),
        used: now,
        currentEntries: parseEntries(raw).map(displayEntry),
      };
    }
    this.write(target, working);
    const message = operations.length === 1 ? { add: "Entry added.", replace: "Entry replaced.", remove: "Entry removed." }[operations[0]!.action] : `Applied ${operations.length} operations.`;
    return { ok: true, message, target, used, limit, entries: working.length };
  }

  private read(target: MemoryTarget): string {
    try {
      return readFileSync(this.path(target), "utf8");
    } catch {
      return "";
    }
  }

  private write(target: MemoryTarget, entries: readonly string[]): void {
    const path = this.path(target);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.${FILES[target]}.${process.pid}.${Date.now()}.tmp`);
    try {
      writeFileSync(temp, entries.join(ENTRY_DELIMITER), { mode: 0o600 });
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw new Error(`cannot write ${path}: ${(error as Error).message}`);
    }
  }

  private failure(target: MemoryTarget, error: string, entries?: readonly string[]): Extract<MemoryResult, { ok: false }> {
    const current = entries ?? this.entries(target);
    return { ok: false, error, target, used: size(this.entries(target)), limit: this.limit(target), currentEntries: current.map(displayEntry) };
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

/** Characters the entries take in the file. */
export function size(entries: readonly string[]): number {
  return entries.length === 0 ? 0 : entries.join(ENTRY_DELIMITER).length;
}

/** A file the tool would not write back as it is: not in the entry format, or one entry over the whole budget. */
function drifted(raw: string, limit: number): boolean {
  if (!raw.trim()) return false;
  const entries = raw.split(ENTRY_DELIMITER).map((entry) => entry.trim()).filter(Boolean);
  return entries.join(ENTRY_DELIMITER) !== raw.trim() || entries.some((entry) => entry.length > limit);
}

/** An entry as the model may see it again: one that looks like an injection is shown blocked. */
export function displayEntry(entry: string): string {
  const threat = findThreat(entry);
  return threat ? `[BLOCKED: ${threat} Remove it with memory(action="remove").]` : entry;
}

function preview(entry: string): string {
  return entry.length > 80 ? `${entry.slice(0, 80)}...` : entry;
}

function label(operations: readonly MemoryOperation[], index: number): string {
  return operations.length === 1 ? operations[0]!.action : `Operation ${index + 1} (${operations[index]!.action})`;
}
