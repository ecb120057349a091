import { decodeText, encodeText } from "../../file-edit/text-format.js";
import { didYouMean } from "./hints.js";
import { shiftIndent } from "./indent.js";
import { leadingWhitespace } from "./normalize.js";
import type { Hunk, HunkLine, PatchOp } from "./parse-v4a.js";
import { FIRST_INDENT_BLIND_LEVEL, seekAnchor, seekSequence, seekUnique, type SeekResult } from "./seek-lines.js";

/**
 * Applies parsed V4A operations to file contents held in memory: no file system access. Every
 * operation is validated against an overlay (later operations see earlier results); when any
 * fails, the result lists every error and nothing is to be written.
 */

/** The files a patch may touch, as the caller read them before applying. */
export interface PatchFiles {
  /** Canonical key (e.g. absolute path) of a path as written in the patch. */
  resolve(path: string): string;
  /** The stored text at a key (BOM and line endings as on disk), or null when no file is there. */
  read(key: string): string | null;
}

/** One file's net change. A move is one change at the destination with `fromPath` set. */
export interface PatchChange {
  /** Key of the file (for a move: the destination). */
  path: string;
  /** The path as the patch wrote it, for messages and diffs. */
  label: string;
  /** Stored text before (for a move: the source's); null when the file is created. */
  oldText: string | null;
  /** Stored text after; null when the file is deleted. */
  newText: string | null;
  fromPath?: string;
  fromLabel?: string;
}

export type ApplyResult =
  | { ok: true; changes: PatchChange[]; alreadyAppliedHunks: number }
  | { ok: false; errors: string[] };

type HunkOutcome = { ok: true; text: string; alreadyApplied: number } | { ok: false; error: string };

/**
 * Applies `ops` in order. Rules: Add needs a free path; Delete, Update and a move's source need an
 * existing file; a move never overwrites. An update keeps the file's BOM, line endings and final
 * newline (or its absence). A hunk whose change is already present is skipped, and a patch that
 * changes nothing at all (only context lines) is an error. Changes come out in first-touch order,
 * without files that end as they started.
 */
export function applyV4aPatch(ops: readonly PatchOp[], files: PatchFiles): ApplyResult {
  const overlay = new Overlay(files);
  const errors: string[] = [];
  let alreadyApplied = 0;
  let changeRequested = false;
  for (const op of ops) {
    const key = overlay.touch(op.path);
    if (op.type === "add") {
      changeRequested = true;
      if (overlay.get(key) !== null) errors.push(`${op.path}: file already exists; use '*** Update File' to change it.`);
      else overlay.create(key, op.content);
    } else if (op.type === "delete") {
      changeRequested = true;
      if (overlay.get(key) === null) errors.push(`${op.path}: file not found, so it cannot be deleted.`);
      else overlay.set(key, null);
    } else if (op.type === "move") {
      changeRequested = true;
      const error = overlay.move(op.path, key, op.to, overlay.get(key));
      if (error) errors.push(error);
    } else {
      changeRequested ||= op.moveTo !== undefined || op.hunks.some((hunk) => hunk.lines.some((line) => line.op !== " "));
      const text = overlay.get(key);
      if (text === null) {
        errors.push(`${op.path}: file not found; use '*** Add File' to create a new file.`);
        continue;
      }
      const outcome = applyHunks(text, op.hunks, op.path);
      if (!outcome.ok) {
        errors.push(outcome.error);
        continue;
      }
      alreadyApplied += outcome.alreadyApplied;
      if (op.moveTo === undefined) overlay.set(key, outcome.text);
      else {
        const error = overlay.move(op.path, key, op.moveTo, outcome.text);
        if (error) errors.push(error);
      }
    }
  }
  if (errors.length === 0 && !changeRequested) errors.push("The patch contains no changes: it has only context lines.");
  return errors.length > 0 ? { ok: false, errors } : { ok: true, changes: overlay.changes(), alreadyAppliedHunks: alreadyApplied };
}

/** File contents as the patch has left them so far, over the originals. */
class Overlay {
  private readonly original = new Map<string, string | null>();
  private readonly current = new Map<string, string | null>();
  private readonly labels = new Map<string, string>();
  /** Move destination → the original file its content came from. */
  private readonly origin = new Map<string, string>();

  constructor(private readonly files: PatchFiles) {}

  /** The key of `path`, reading the file the first time it is seen. */
  touch(path: string): string {
    const key = this.files.resolve(path);
    if (!this.original.has(key)) {
      const text = this.files.read(key);
      this.original.set(key, text);
      this.current.set(key, text);
      this.labels.set(key, path);
    }
    return key;
  }

  get(key: string): string | null {
    return this.current.get(key) ?? null;
  }

  /** Sets the content at `key`, keeping track of where moved content came from. */
  set(key: string, text: string | null): void {
    this.current.set(key, text);
  }

  /** Puts new content at `key`, unrelated to any file moved there before. */
  create(key: string, text: string): void {
    this.current.set(key, text);
    this.origin.delete(key);
  }

  /** Moves the file at `fromKey` to `toPath` with `text` as its content; an error message when it cannot. */
  move(fromPath: string, fromKey: string, toPath: string, text: string | null): string | undefined {
    if (text === null) return `${fromPath}: file not found, so it cannot be moved.`;
    const toKey = this.touch(toPath);
    if (toKey === fromKey) {
      this.current.set(fromKey, text);
      return undefined;
    }
    if (this.get(toKey) !== null) return `${toPath}: destination already exists; a move never overwrites a file.`;
    const source = this.origin.get(fromKey) ?? fromKey;
    this.origin.delete(fromKey);
    this.current.set(fromKey, null);
    this.current.set(toKey, text);
    this.origin.set(toKey, source);
    return undefined;
  }

  /** Net changes, first-touch order; a file moved from an original file that is now gone is one move. */
  changes(): PatchChange[] {
    const moves = new Map<string, string>();
    const folded = new Set<string>();
    for (const [to, from] of this.origin) {
      if (folded.has(from)) continue;
      if (this.original.get(from) != null && this.get(from) === null && this.original.get(to) === null && this.get(to) !== null) {
        moves.set(to, from);
        folded.add(from);
      }
    }
    const changes: PatchChange[] = [];
    for (const [key, oldText] of this.original) {
      if (folded.has(key)) continue;
      const label = this.labels.get(key) ?? key;
      const from = moves.get(key);
      const newText = this.get(key);
      if (from !== undefined) {
        const fromLabel = this.labels.get(from) ?? from;
        changes.push({ path: key, label, oldText: this.original.get(from) ?? null, newText, fromPath: from, fromLabel });
      } else if (oldText !== newText) {
        changes.push({ path: key, label, oldText, newText });
      }
    }
    return changes;
  }
}

/** "hunk 2 (@@ def run)" for messages. */
function hunkName(index: number, hunk: Hunk): string {
  return hunk.anchors.length > 0 ? `hunk ${index + 1} (@@ ${hunk.anchors.join(" / ")})` : `hunk ${index + 1}`;
}

/** Hunk lines without trailing empty context lines (often just separators before the next `@@`). */
function withoutTrailingBlankContext(lines: readonly HunkLine[]): HunkLine[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1]?.op === " " && out[out.length - 1]?.text.trim() === "") out.pop();
  return out;
}

const oldSide = (lines: readonly HunkLine[]): string[] => lines.filter((l) => l.op !== "+").map((l) => l.text);
const newSide = (lines: readonly HunkLine[]): string[] => lines.filter((l) => l.op !== "-").map((l) => l.text);

/**
 * Applies one Update block's hunks to stored text, in order: anchors are sought after the previous
 * hunk, the hunk's old lines after its anchors (at the end of the file first for `*** End of
 * File`), and, failing that, anywhere in the file when they occur exactly once. Context lines keep
 * the file's text; added lines are re-indented when the match ignored indentation.
 */
export function applyHunks(text: string, hunks: readonly Hunk[], label: string): HunkOutcome {
  const { body, format } = decodeText(text);
  const finalNewline = body.endsWith("\n") || body === "";
  const lines = body === "" ? [] : (body.endsWith("\n") ? body.slice(0, -1) : body).split("\n");
  let cursor = 0;
  let alreadyApplied = 0;
  for (const [index, hunk] of hunks.entries()) {
    for (const anchor of hunk.anchors) {
      let at = seekAnchor(lines, anchor, cursor);
      if (at === -1) at = seekAnchor(lines, anchor, 0);
      if (at === -1) {
        return { ok: false, error: `${label}: ${hunkName(index, hunk)}: the anchor line '${anchor}' was not found.${didYouMean(lines.join("\n"), anchor)}` };
      }
      cursor = at + 1;
    }
    if (!hunk.lines.some((line) => line.op !== " ")) continue;
    let hunkLines: readonly HunkLine[] = hunk.lines;
    if (oldSide(hunkLines).length === 0) {
      const at = hunk.anchors.length > 0 && !hunk.endOfFile ? cursor : lines.length;
      const added = newSide(hunkLines);
      lines.splice(at, 0, ...added);
      cursor = at + added.length;
      continue;
    }
    let found = locate(lines, oldSide(hunkLines), cursor, hunk.endOfFile);
    if (!found) {
      const trimmed = withoutTrailingBlankContext(hunkLines);
      if (trimmed.length < hunkLines.length && oldSide(trimmed).length > 0) {
        found = locate(lines, oldSide(trimmed), cursor, hunk.endOfFile);
        if (found) hunkLines = trimmed;
      }
    }
    if (!found) {
      const wanted = newSide(hunkLines);
      if (wanted.some((line) => line.trim() !== "") && seekSequence(lines, wanted, 0)) {
        alreadyApplied++;
        continue;
      }
      const expected = oldSide(hunkLines).join("\n");
      return {
        ok: false,
        error:
          `${label}: ${hunkName(index, hunk)} does not match the file: its context and '-' lines were not found` +
          `${cursor > 0 ? ` after line ${cursor}` : ""}.${didYouMean(lines.join("\n"), expected)}`,
      };
    }
    const replacement = replacementLines(hunkLines, lines, found);
    lines.splice(found.index, oldSide(hunkLines).length, ...replacement);
    cursor = found.index + replacement.length;
  }
  const newBody = lines.length === 0 ? "" : lines.join("\n") + (finalNewline ? "\n" : "");
  return { ok: true, text: encodeText(newBody, format), alreadyApplied };
}

function locate(lines: readonly string[], old: readonly string[], cursor: number, eof: boolean): SeekResult | undefined {
  return seekSequence(lines, old, cursor, eof) ?? seekUnique(lines, old);
}

/**
 * The lines that replace the matched ones: the file's own lines for context, the patch's lines for
 * additions. When the match ignored indentation, each added line is shifted by the indentation
 * difference (file vs patch) of the nearest old line above it (below it for leading additions).
 */
function replacementLines(hunkLines: readonly HunkLine[], lines: readonly string[], found: SeekResult): string[] {
  const reindent = found.level >= FIRST_INDENT_BLIND_LEVEL;
  /** Per hunk line: the [patch, file] text of its old line, when it has one. */
  const pairs: Array<[string, string] | undefined> = [];
  let fileIndex = found.index;
  for (const line of hunkLines) {
    pairs.push(line.op === "+" ? undefined : [line.text, lines[fileIndex++] ?? line.text]);
  }
  const reference = (at: number): [string, string] | undefined => {
    for (let i = at - 1; i >= 0; i--) if (pairs[i] && pairs[i]?.[0].trim() !== "") return pairs[i];
    for (let i = at + 1; i < pairs.length; i++) if (pairs[i] && pairs[i]?.[0].trim() !== "") return pairs[i];
    return undefined;
  };
  const out: string[] = [];
  hunkLines.forEach((line, i) => {
    if (line.op === " ") out.push(pairs[i]?.[1] ?? line.text);
    else if (line.op === "+") {
      const ref = reindent && line.text.trim() !== "" ? reference(i) : undefined;
      out.push(ref ? shiftIndent(line.text, leadingWhitespace(ref[0]), leadingWhitespace(ref[1])) : line.text);
    }
  });
  return out;
}
