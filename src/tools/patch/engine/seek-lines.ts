import { unicodeToAscii } from "./normalize.js";

/**
 * Locating a V4A hunk's lines in a file's lines, with decreasing strictness. Pure functions.
 */

/**
 * Line comparisons from strictest to loosest: exact; trailing whitespace ignored; leading and
 * trailing whitespace ignored; typographic characters as ASCII; runs of blanks as one space.
 */
export const SEEK_LEVELS: ReadonlyArray<(line: string) => string> = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => unicodeToAscii(line).trim(),
  (line) => unicodeToAscii(line).trim().replace(/[ \t]+/g, " "),
];

/** Index of the first level that ignores leading whitespace; matches from here on are re-indented. */
export const FIRST_INDENT_BLIND_LEVEL = 2;

export interface SeekResult {
  /** Index in `lines` where the pattern starts. */
  index: number;
  /** Index in SEEK_LEVELS of the comparison that matched. */
  level: number;
}

function matchesAt(lines: readonly string[], pattern: readonly string[], at: number, normalize: (line: string) => string): boolean {
  for (let k = 0; k < pattern.length; k++) {
    if (normalize(lines[at + k] ?? "") !== normalize(pattern[k] ?? "")) return false;
  }
  return true;
}

/**
 * Where `pattern` occurs in `lines` at or after `start`: at the strictest level that finds it,
 * the first position; with `eof`, a position ending the file is preferred at each level. An empty
 * pattern is found at `start`.
 */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, eof = false): SeekResult | undefined {
  if (pattern.length === 0) return { index: start, level: 0 };
  const lastStart = lines.length - pattern.length;
  if (lastStart < start) return undefined;
  for (let level = 0; level < SEEK_LEVELS.length; level++) {
    const normalize = SEEK_LEVELS[level] ?? ((line: string) => line);
    if (eof && matchesAt(lines, pattern, lastStart, normalize)) return { index: lastStart, level };
    for (let i = start; i <= lastStart; i++) {
      if (matchesAt(lines, pattern, i, normalize)) return { index: i, level };
    }
  }
  return undefined;
}

/**
 * Where `pattern` occurs anywhere in `lines`, when it occurs exactly once at the strictest level
 * that finds it; undefined when it is missing or ambiguous.
 */
export function seekUnique(lines: readonly string[], pattern: readonly string[]): SeekResult | undefined {
  if (pattern.length === 0) return undefined;
  for (let level = 0; level < SEEK_LEVELS.length; level++) {
    const normalize = SEEK_LEVELS[level] ?? ((line: string) => line);
    const found: number[] = [];
    for (let i = 0; i + pattern.length <= lines.length && found.length < 2; i++) {
      if (matchesAt(lines, pattern, i, normalize)) found.push(i);
    }
    if (found.length === 1) return { index: found[0] ?? 0, level };
    if (found.length > 1) return undefined;
  }
  return undefined;
}

/**
 * The line an `@@ anchor` names, at or after `start`: a line equal to it at any level, else the
 * first line containing it (trimmed, typographic characters as ASCII), e.g. `@@ def run` for
 * `    def run(self, x):`. -1 when there is none.
 */
export function seekAnchor(lines: readonly string[], anchor: string, start: number): number {
  const found = seekSequence(lines, [anchor], start);
  if (found) return found.index;
  const wanted = unicodeToAscii(anchor).trim();
  for (let i = start; i < lines.length; i++) {
    if (unicodeToAscii(lines[i] ?? "").includes(wanted)) return i;
  }
  return -1;
}
