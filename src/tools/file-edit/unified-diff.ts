import path from "node:path";
import { FILE_HEADERS_ONLY, createTwoFilesPatch } from "diff";
import { toBody } from "./text-format.js";

/**
 * How a file is named in diffs: relative to `cwd` when inside it, else absolute (shown as
 * `a/abs/path`, without a doubled slash).
 */
export function diffLabel(absolute: string, cwd: string): string {
  const rel = path.relative(cwd, absolute);
  if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel;
  return absolute.replace(/^\/+/, "");
}

/** One file's change as the diff shows it; null text = the file does not exist on that side. */
export interface DiffInput {
  /** Name shown after `a/` and `b/`: the path as the user knows it. */
  label: string;
  oldText: string | null;
  newText: string | null;
  /** For a move: the source's label, shown after `a/`. */
  fromLabel?: string;
}

/** Lines of context around each change. */
const CONTEXT_LINES = 3;
/** Beyond this many changed lines the diff is not computed (Myers' cost grows with it). */
const MAX_EDIT_LENGTH = 2000;
/** Beyond this many characters on both sides together the diff is not computed. */
const MAX_DIFF_INPUT_CHARS = 4_000_000;

/**
 * A git-style unified diff (`--- a/x` / `+++ b/x`, `/dev/null` for a created or deleted file) of
 * one change, compared as shown (BOM dropped, CRLF as LF). Returns "" when the texts are equal,
 * and a one-line note instead of hunks when the change is too large to diff. Never throws.
 */
export function unifiedDiff(input: DiffInput): string {
  const oldBody = input.oldText === null ? "" : toBody(input.oldText);
  const newBody = input.newText === null ? "" : toBody(input.newText);
  const oldName = input.oldText === null ? "/dev/null" : `a/${input.fromLabel ?? input.label}`;
  const newName = input.newText === null ? "/dev/null" : `b/${input.label}`;
  const renamed = input.fromLabel !== undefined && input.fromLabel !== input.label;
  if (oldBody === newBody && !renamed && (input.oldText === null) === (input.newText === null)) return "";
  const header = `--- ${oldName}\n+++ ${newName}\n`;
  if (oldBody.length + newBody.length > MAX_DIFF_INPUT_CHARS) return `${header}(diff omitted: file too large)\n`;
  const patch = createTwoFilesPatch(oldName, newName, oldBody, newBody, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
    headerOptions: FILE_HEADERS_ONLY,
  });
  if (patch === undefined) return `${header}(diff omitted: too many changed lines)\n`;
  return patch;
}

/** The diffs of several changes, concatenated in order, skipping empty ones. */
export function unifiedDiffs(inputs: readonly DiffInput[]): string {
  return inputs.map(unifiedDiff).filter((diff) => diff !== "").join("");
}
