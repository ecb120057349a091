import {
  collapseBlanks,
  collapseBlanksText,
  mapUnicodeToAscii,
  originalSpan,
  similarity,
  unicodeToAscii,
  type MappedText,
} from "./normalize.js";

/**
 * The matching strategies of replace mode, tried in this order by `findMatches`; the first that
 * finds anything wins. Each takes the file's body text (LF line endings) and the model's
 * `old_string`, and returns non-overlapping spans of the file, in order. Pure functions.
 */
export type StrategyName =
  | "exact"
  | "line_trimmed"
  | "whitespace_normalized"
  | "indentation_flexible"
  | "escape_normalized"
  | "trimmed_boundary"
  | "unicode_normalized"
  | "block_anchor"
  | "context_aware";

/** A match: `content.slice(start, end)` is the text to replace. */
export interface Span {
  start: number;
  end: number;
}

export interface Strategy {
  name: StrategyName;
  find(content: string, pattern: string): Span[];
}

/** Strategies that accept regions only resembling old_string; never used to replace several matches. */
export const SIMILARITY_STRATEGIES: ReadonlySet<StrategyName> = new Set(["block_anchor", "context_aware"]);

/** Every occurrence of `pattern`, left to right, not overlapping (like String.replaceAll). */
export function exact(content: string, pattern: string): Span[] {
  const spans: Span[] = [];
  if (pattern === "") return spans;
  for (let at = content.indexOf(pattern); at !== -1; at = content.indexOf(pattern, at + pattern.length)) {
    spans.push({ start: at, end: at + pattern.length });
  }
  return spans;
}

/** Line `i`'s start offset, for every line of `lines` plus one past the end. */
function lineOffsets(lines: readonly string[]): number[] {
  const offsets = [0];
  for (const line of lines) offsets.push((offsets[offsets.length - 1] ?? 0) + line.length + 1);
  return offsets;
}

/**
 * Windows of `count` consecutive lines accepted by `accepts(windowStart)`, as spans from the start
 * of the first line to the end of the last (its newline excluded). A pattern ending in a newline is
 * matched without it and the newline after the window is included.
 */
function lineWindows(
  content: string,
  pattern: string,
  accepts: (contentLines: string[], start: number, patternLines: string[]) => boolean,
): Span[] {
  const trailingNewline = pattern.endsWith("\n") && pattern.length > 1;
  const patternLines = (trailingNewline ? pattern.slice(0, -1) : pattern).split("\n");
  const contentLines = content.split("\n");
  const offsets = lineOffsets(contentLines);
  const spans: Span[] = [];
  for (let i = 0; i + patternLines.length <= contentLines.length; i++) {
    if (!accepts(contentLines, i, patternLines)) continue;
    const last = i + patternLines.length - 1;
    let end = (offsets[last] ?? 0) + (contentLines[last]?.length ?? 0);
    if (trailingNewline) {
      if (content[end] !== "\n") continue;
      end++;
    }
    spans.push({ start: offsets[i] ?? 0, end });
  }
  return withoutOverlaps(spans);
}

/** Spans whose lines equal the pattern's after `normalize` is applied to both. */
function normalizedLines(content: string, pattern: string, normalize: (line: string) => string): Span[] {
  return lineWindows(content, pattern, (lines, start, patternLines) =>
    patternLines.every((line, k) => normalize(lines[start + k] ?? "") === normalize(line)),
  );
}

/** Exact matches of the normalized pattern in a normalized copy of the content, mapped back. */
function mappedExact(mapped: MappedText, normalizedPattern: string): Span[] {
  return exact(mapped.text, normalizedPattern)
    .map((span) => originalSpan(mapped, span.start, span.end))
    .filter((span): span is Span => span !== undefined);
}

function withoutOverlaps(spans: Span[]): Span[] {
  const kept: Span[] = [];
  for (const span of spans) {
    const last = kept[kept.length - 1];
    if (!last || span.start >= last.end) kept.push(span);
  }
  return kept;
}

/** Each line compared with leading and trailing whitespace removed. */
export function lineTrimmed(content: string, pattern: string): Span[] {
  return normalizedLines(content, pattern, (line) => line.trim());
}

/** Runs of spaces and tabs count as one space. */
export function whitespaceNormalized(content: string, pattern: string): Span[] {
  const normalizedPattern = collapseBlanksText(pattern);
  if (normalizedPattern.trim() === "" || !collapseBlanksText(content).includes(normalizedPattern)) return [];
  return mappedExact(collapseBlanks(content), normalizedPattern);
}

/** Indentation ignored: each line compared without its leading whitespace. */
export function indentationFlexible(content: string, pattern: string): Span[] {
  return normalizedLines(content, pattern, (line) => line.trimStart());
}

/** Literal `\n`, `\t` and `\r` in the pattern taken as the characters they stand for. */
export function escapeNormalized(content: string, pattern: string): Span[] {
  const unescaped = unescapeControls(pattern);
  return unescaped === pattern ? [] : exact(content, unescaped);
}

/** `\n`, `\t`, `\r` escape sequences turned into newline, tab and carriage return. */
export function unescapeControls(text: string): string {
  return text.replace(/\\n/g, "\n").replace(/\\t/g, "\t").replace(/\\r/g, "\r");
}

/** Only the first and last lines compared trimmed; inner lines must match exactly. */
export function trimmedBoundary(content: string, pattern: string): Span[] {
  return lineWindows(content, pattern, (lines, start, patternLines) => {
    const lastIndex = patternLines.length - 1;
    return patternLines.every((line, k) => {
      const actual = lines[start + k] ?? "";
      return k === 0 || k === lastIndex ? actual.trim() === line.trim() : actual === line;
    });
  });
}

/**
 * Smart quotes, dashes, ellipses and unusual spaces compared as their ASCII spellings, on either
 * side; exact first, then line-trimmed, in the normalized copies.
 */
export function unicodeNormalized(content: string, pattern: string): Span[] {
  const normalizedContent = unicodeToAscii(content);
  const normalizedPattern = unicodeToAscii(pattern);
  if (normalizedContent === content && normalizedPattern === pattern) return [];
  const mapped = mapUnicodeToAscii(content);
  const found = mappedExact(mapped, normalizedPattern);
  if (found.length > 0) return found;
  return lineTrimmed(mapped.text, normalizedPattern)
    .map((span) => originalSpan(mapped, span.start, span.end))
    .filter((span): span is Span => span !== undefined);
}

/**
 * First and last lines equal after trimming (and Unicode normalization), the lines between
 * similar: ≥ 0.5 when only one block is anchored so, ≥ 0.7 when several are. Needs ≥ 3 lines.
 */
export function blockAnchor(content: string, pattern: string): Span[] {
  const normalizedContent = unicodeToAscii(content);
  const normalizedPattern = unicodeToAscii(pattern);
  const patternLines = normalizedPattern.replace(/\n$/, "").split("\n");
  if (patternLines.length < 3) return [];
  const contentLines = normalizedContent.split("\n");
  const first = patternLines[0]?.trim() ?? "";
  const last = patternLines[patternLines.length - 1]?.trim() ?? "";
  const candidates: number[] = [];
  for (let i = 0; i + patternLines.length <= contentLines.length; i++) {
    if (contentLines[i]?.trim() === first && contentLines[i + patternLines.length - 1]?.trim() === last) candidates.push(i);
  }
  const threshold = candidates.length === 1 ? 0.5 : 0.7;
  const middle = patternLines.slice(1, -1).join("\n");
  const accepted = new Set(
    candidates.filter(
      (i) => similarity(contentLines.slice(i + 1, i + patternLines.length - 1).join("\n"), middle, threshold) >= threshold,
    ),
  );
  // Offsets come from the original lines: the normalization never adds or removes newlines.
  return lineWindows(content, pattern, (_lines, start) => accepted.has(start));
}

/**
 * Last resort: first and last lines ≥ 0.8 similar (trimmed) to the pattern's, and every
 * non-blank pattern line ≥ 0.8 similar to the line it is aligned with.
 */
export function contextAware(content: string, pattern: string): Span[] {
  const near = (a: string, b: string): boolean => similarity(a.trim(), b.trim(), 0.8) >= 0.8;
  return lineWindows(content, pattern, (lines, start, patternLines) => {
    const lastIndex = patternLines.length - 1;
    if (!near(lines[start] ?? "", patternLines[0] ?? "")) return false;
    if (!near(lines[start + lastIndex] ?? "", patternLines[lastIndex] ?? "")) return false;
    return patternLines.every((line, k) => line.trim() === "" || near(lines[start + k] ?? "", line));
  });
}

export const STRATEGIES: readonly Strategy[] = [
  { name: "exact", find: exact },
  { name: "line_trimmed", find: lineTrimmed },
  { name: "whitespace_normalized", find: whitespaceNormalized },
  { name: "indentation_flexible", find: indentationFlexible },
  { name: "escape_normalized", find: escapeNormalized },
  { name: "trimmed_boundary", find: trimmedBoundary },
  { name: "unicode_normalized", find: unicodeNormalized },
  { name: "block_anchor", find: blockAnchor },
  { name: "context_aware", find: contextAware },
];

/** The first strategy, in order, that finds any match, with its spans; undefined when none does. */
export function findMatches(content: string, pattern: string): { strategy: StrategyName; spans: Span[] } | undefined {
  for (const strategy of STRATEGIES) {
    const spans = strategy.find(content, pattern);
    if (spans.length > 0) return { strategy: strategy.name, spans };
  }
  return undefined;
}
