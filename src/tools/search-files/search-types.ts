import { hasGlobSyntax } from "./glob.js";

/** What both engines (ripgrep and the Node fallback) are asked, after the tool resolved its args. */
export interface SearchRequest {
  /** Absolute path of the directory or file to search. */
  root: string;
  /** True when `root` is a file: then the only result path is its base name. */
  rootIsFile: boolean;
  target: "content" | "files";
  /** A regex for content search, a glob for file search. */
  pattern: string;
  /** Content search only: `rg --glob` filter (a leading `!` excludes). */
  fileGlob?: string;
  outputMode: "content" | "files_only" | "count";
  /** Lines of context before and after each match (content mode). */
  context: number;
}

/** One line of a file; `text` has its line terminator (`\n`, `\r\n`) removed and is cut to 500 chars. */
export interface LineHit {
  line: number;
  text: string;
}

/** Hits in one file, content mode. */
export interface FileLineHits {
  matches: LineHit[];
  /** Context lines (never a matching line), keyed by line number. */
  context: Map<number, string>;
}

/**
 * What an engine found, unsorted; paths relative to the search root with `/` separators.
 * `capped` is set when collection stopped at `MAX_COLLECTED` entries.
 */
export type EngineResult =
  | { kind: "files"; files: string[]; capped: boolean }
  | { kind: "counts"; counts: Map<string, number>; capped: boolean }
  | { kind: "lines"; files: Map<string, FileLineHits>; capped: boolean }
  | { kind: "error"; message: string };

/** Most entries (matching lines, files or counted files) collected before a search stops. */
export const MAX_COLLECTED = 100_000;
/** Longest line text kept per hit. */
export const MAX_HIT_TEXT = 500;

/** The text of a line as shown: `\r` of a CRLF ending removed, cut to `MAX_HIT_TEXT` chars. */
export function hitText(line: string): string {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  return text.length > MAX_HIT_TEXT ? `${text.slice(0, MAX_HIT_TEXT)}... [truncated]` : text;
}

/**
 * True when a regex wants to match a line break: a literal newline, or `\n` preceded by an even
 * number of backslashes (`\\n` is a backslash and an `n`). Search is line-oriented.
 */
export function patternHasNewline(pattern: string): boolean {
  return pattern.includes("\n") || /(?<!\\)(?:\\\\)*\\n/.test(pattern);
}

/** The file glob used for `target: "files"`: a plain name (no glob syntax, no `/`) becomes `*name*`. */
export function fileSearchGlob(pattern: string): { glob: string; caseInsensitive: boolean } {
  if (!hasGlobSyntax(pattern) && !pattern.includes("/")) return { glob: `*${pattern}*`, caseInsensitive: true };
  return { glob: pattern, caseInsensitive: false };
}
