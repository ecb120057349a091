/**
 * Parser of the V4A patch format (codex / Cline style). Pure: text in, operations or one error
 * message for the model out; never throws.
 *
 * ```
 * *** Begin Patch
 * *** Update File: src/app.py
 * *** Move to: src/main.py          (optional, right after Update File)
 * @@ def handler():                 (optional anchors; several narrow step by step)
 *  context line
 * -removed line
 * +added line
 * *** End of File                   (optional: the hunk ends at the end of the file)
 * *** Add File: docs/new.md
 * +first line
 * *** Delete File: old.txt
 * *** Move File: a.txt -> b.txt
 * *** End Patch
 * ```
 *
 * Markers start at column 0; `***` may be followed by any spacing, keywords are case-insensitive,
 * CRLF is tolerated. `*** Begin Patch` may be left out when the text starts with a file header;
 * `*** End Patch` is required, so a patch cut off mid-way is refused rather than half applied.
 * Inside an Update block, a line without a prefix counts as context and an empty line as an
 * empty context line; `\ No newline at end of file` is skipped. Plain unified diffs are refused.
 */

export type HunkLineOp = " " | "-" | "+";

export interface HunkLine {
  op: HunkLineOp;
  text: string;
}

export interface Hunk {
  /** `@@ <text>` lines before the hunk, in order; each is sought after the previous. */
  anchors: string[];
  lines: HunkLine[];
  /** Marked `*** End of File`: the hunk's old lines end the file. */
  endOfFile: boolean;
}

export type PatchOp =
  | { type: "add"; path: string; content: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; moveTo?: string; hunks: Hunk[] }
  | { type: "move"; path: string; to: string };

export type ParseResult = { ok: true; ops: PatchOp[] } | { ok: false; error: string };

const BEGIN = /^\*\*\*\s*begin\s+patch\s*$/i;
const END = /^\*\*\*\s*end\s+patch\s*$/i;
const FILE_HEADER = /^\*\*\*\s*(add|delete|update|move)\s+file\s*:\s*(.*?)\s*$/i;
const MOVE_TO = /^\*\*\*\s*move\s+to\s*:\s*(.*?)\s*$/i;
const END_OF_FILE = /^\*\*\*\s*end\s+of\s+file\s*$/i;
const UNIFIED_HUNK = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;

/** How the format looks, for error messages. */
export const V4A_FORMAT_HELP = [
  "Patch mode takes the V4A format:",
  "*** Begin Patch",
  "*** Update File: path/to/file",
  "@@ a line to anchor on, e.g. a function signature (optional)",
  " unchanged context line (starts with a space)",
  "-removed line",
  "+added line",
  "*** Add File: path/to/new-file",
  "+each line of the new file, prefixed with +",
  "*** Delete File: path/to/old-file",
  "*** Move File: old/path -> new/path",
  "*** End Patch",
  'For a single change, mode "replace" with path, old_string and new_string is simpler.',
].join("\n");

/** True for text that is a plain unified diff (git diff / diff -u output) rather than V4A. */
export function looksLikeUnifiedDiff(lines: readonly string[]): boolean {
  return lines.some(
    (line, i) =>
      line.startsWith("diff --git ") ||
      UNIFIED_HUNK.test(line) ||
      (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")),
  );
}

function unifiedDiffError(): ParseResult {
  return {
    ok: false,
    error: `This is a unified diff (---/+++ headers, @@ -a,b +c,d @@ hunks), which patch mode does not accept.\n${V4A_FORMAT_HELP}`,
  };
}

/** Parses V4A patch text into operations, in patch order. */
export function parseV4aPatch(text: string): ParseResult {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  let begin = lines.findIndex((line) => BEGIN.test(line.trimEnd()));
  let end = -1;
  for (let i = lines.length - 1; i > begin; i--) {
    if (END.test(lines[i]?.trimEnd() ?? "")) {
      end = i;
      break;
    }
  }
  if (begin === -1) {
    if (looksLikeUnifiedDiff(lines)) return unifiedDiffError();
    const first = lines.findIndex((line) => line.trim() !== "" && !/^(```|<<['"]?EOF['"]?$)/.test(line.trim()));
    if (first === -1 || !FILE_HEADER.test(lines[first] ?? "")) {
      return { ok: false, error: `The patch must start with '*** Begin Patch'.\n${V4A_FORMAT_HELP}` };
    }
    begin = first - 1;
  }
  if (end === -1) {
    return {
      ok: false,
      error:
        "The patch has no '*** End Patch' line, so it may have been cut off; nothing was changed. " +
        "Send the complete patch, ending with '*** End Patch'.",
    };
  }
  const body = lines.slice(begin + 1, end);
  const firstHeader = body.findIndex((line) => FILE_HEADER.test(line));
  if (looksLikeUnifiedDiff(firstHeader === -1 ? body : body.slice(0, firstHeader))) return unifiedDiffError();
  return new Parser(begin + 2).parse(body);
}

class Parser {
  private readonly ops: PatchOp[] = [];
  private current: { op: PatchOp; addLines?: string[] } | undefined;
  private hunk: Hunk | undefined;

  /** `firstLine`: the 1-based line number of the body's first line in the patch text. */
  constructor(private readonly firstLine: number) {}

  parse(body: readonly string[]): ParseResult {
    for (let i = 0; i < body.length; i++) {
      const error = this.line(body[i] ?? "", this.firstLine + i);
      if (error) return { ok: false, error };
    }
    this.finishOp();
    return this.validate();
  }

  /** Consumes one line; returns an error message when the line cannot be part of the patch. */
  private line(line: string, lineNumber: number): string | undefined {
    const header = FILE_HEADER.exec(line);
    if (header) return this.startOp((header[1] ?? "").toLowerCase(), header[2] ?? "", lineNumber);
    if (BEGIN.test(line.trimEnd()) || END.test(line.trimEnd())) {
      this.finishOp();
      return undefined;
    }
    const op = this.current?.op;
    const moveTo = MOVE_TO.exec(line);
    if (moveTo) {
      if (op?.type !== "update" || op.hunks.length > 0 || this.hunk || op.moveTo !== undefined) {
        return `Line ${lineNumber}: '*** Move to:' must directly follow an '*** Update File:' line.`;
      }
      op.moveTo = moveTo[1] ?? "";
      return undefined;
    }
    if (END_OF_FILE.test(line.trimEnd())) {
      if (this.hunk) this.hunk.endOfFile = true;
      this.finishHunk();
      return undefined;
    }
    if (line.startsWith("***")) {
      return (
        `Line ${lineNumber}: '${line}' is not a valid patch line. File headers are ` +
        "'*** Add File: path', '*** Delete File: path', '*** Update File: path' and '*** Move File: a -> b'."
      );
    }
    if (!op) {
      if (line.trim() === "") return undefined;
      return `Line ${lineNumber}: expected a file header such as '*** Update File: path', got '${line}'.`;
    }
    if (op.type === "add") {
      if (line.startsWith("+")) this.current?.addLines?.push(line.slice(1));
      else if (line.trim() === "") this.current?.addLines?.push("");
      else return `Line ${lineNumber}: every line of an '*** Add File' block must start with '+', got '${line}'.`;
      return undefined;
    }
    if (op.type === "delete" || op.type === "move") {
      if (line.trim() === "") return undefined;
      const what = op.type === "delete" ? "*** Delete File" : "*** Move File";
      return `Line ${lineNumber}: '${what}' takes no content lines; put edits in an '*** Update File' block.`;
    }
    return this.updateLine(line, lineNumber);
  }

  private updateLine(line: string, lineNumber: number): string | undefined {
    if (line.startsWith("@@")) {
      if (UNIFIED_HUNK.test(line)) {
        return `Line ${lineNumber}: '${line}' is a unified-diff hunk header, which patch mode does not accept.\n${V4A_FORMAT_HELP}`;
      }
      const anchor = line.slice(2).replace(/@@\s*$/, "").trim();
      if (!this.hunk || this.hunk.lines.length > 0) {
        this.finishHunk();
        this.hunk = { anchors: [], lines: [], endOfFile: false };
      }
      if (anchor !== "") this.hunk.anchors.push(anchor);
      return undefined;
    }
    if (line.startsWith("\\")) return undefined;
    if (!this.hunk) {
      if (line.trim() === "") return undefined;
      this.hunk = { anchors: [], lines: [], endOfFile: false };
    }
    const prefix = line[0];
    if (prefix === " " || prefix === "-" || prefix === "+") this.hunk.lines.push({ op: prefix, text: line.slice(1) });
    else this.hunk.lines.push({ op: " ", text: line });
    return undefined;
  }

  private startOp(kind: string, rest: string, lineNumber: number): string | undefined {
    this.finishOp();
    if (kind === "move") {
      const arrow = rest.indexOf("->");
      if (arrow === -1) return `Line ${lineNumber}: '*** Move File:' needs 'old/path -> new/path'.`;
      this.current = { op: { type: "move", path: rest.slice(0, arrow).trim(), to: rest.slice(arrow + 2).trim() } };
    } else if (kind === "add") {
      this.current = { op: { type: "add", path: rest, content: "" }, addLines: [] };
    } else if (kind === "delete") {
      this.current = { op: { type: "delete", path: rest } };
    } else {
      this.current = { op: { type: "update", path: rest, hunks: [] } };
    }
    return undefined;
  }

  private finishHunk(): void {
    const hunk = this.hunk;
    this.hunk = undefined;
    const op = this.current?.op;
    if (!hunk || op?.type !== "update") return;
    // Blank lines that only separate hunks carry no change and no anchor.
    if (hunk.anchors.length === 0 && hunk.lines.every((line) => line.op === " " && line.text === "")) return;
    op.hunks.push(hunk);
  }

  private finishOp(): void {
    this.finishHunk();
    const current = this.current;
    this.current = undefined;
    if (!current) return;
    if (current.op.type === "add" && current.addLines) {
      const added = current.addLines;
      while (added.length > 0 && added[added.length - 1] === "") added.pop();
      current.op.content = added.length > 0 ? `${added.join("\n")}\n` : "";
    }
    this.ops.push(current.op);
  }

  private validate(): ParseResult {
    if (this.ops.length === 0) return { ok: false, error: `The patch contains no file operations.\n${V4A_FORMAT_HELP}` };
    const errors: string[] = [];
    for (const op of this.ops) {
      const paths = op.type === "move" ? [op.path, op.to] : op.type === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path];
      for (const path of paths) {
        if (path === "") errors.push(`A '${describeOp(op)}' operation has an empty path.`);
        else if (path.split(/[\\/]/).includes("..")) {
          errors.push(`${path}: paths with '..' are not accepted; use a path inside the working directory or an absolute path.`);
        }
      }
      if (op.type === "update") {
        if (op.hunks.length === 0 && op.moveTo === undefined) errors.push(`${op.path}: '*** Update File' has no hunks.`);
        for (const hunk of op.hunks) {
          if (hunk.lines.length === 0) errors.push(`${op.path}: the hunk at '@@ ${hunk.anchors.join(" / ")}' has no lines.`);
        }
      }
    }
    return errors.length > 0 ? { ok: false, error: errors.join("\n") } : { ok: true, ops: this.ops };
  }
}

function describeOp(op: PatchOp): string {
  return { add: "*** Add File", delete: "*** Delete File", update: "*** Update File", move: "*** Move File" }[op.type];
}

/** Every path an operation list touches, as written (sources, targets and move destinations), first-seen order. */
export function patchPaths(ops: readonly PatchOp[]): string[] {
  const paths = new Set<string>();
  for (const op of ops) {
    paths.add(op.path);
    if (op.type === "move") paths.add(op.to);
    if (op.type === "update" && op.moveTo !== undefined) paths.add(op.moveTo);
  }
  return [...paths];
}

/**
 * The file paths named by the header lines of possibly invalid patch text, in order (a move's
 * source, then its destination). For describing a call before it runs; never throws.
 */
export function scanPatchPaths(text: string): string[] {
  const paths: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    const header = FILE_HEADER.exec(line);
    const moveTo = MOVE_TO.exec(line);
    if (header && (header[1] ?? "").toLowerCase() === "move") {
      const [from, to] = (header[2] ?? "").split("->").map((part) => part.trim());
      if (from) paths.push(from);
      if (to) paths.push(to);
    } else if (header?.[2]) paths.push(header[2]);
    else if (moveTo?.[1]) paths.push(moveTo[1]);
  }
  return [...new Set(paths)];
}
