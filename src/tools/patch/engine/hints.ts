import { sharedCharactersBound, similarity } from "./normalize.js";
import type { Span } from "./match-strategies.js";

/**
 * Messages that help the model correct a failed edit: where an ambiguous old_string matched, and
 * which parts of the file resemble text that matched nowhere. Pure functions.
 */

/** 1-based line of offset `at` in `content`. */
export function lineNumberAt(content: string, at: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < at; i = content.indexOf("\n", i + 1)) line++;
  return line;
}

/** Up to `cap` matches as `  L<line>: <trimmed line, cut at 80 chars>` rows, then `  ... and N more`. */
export function formatMatchLocations(content: string, spans: readonly Span[], cap = 5): string {
  const rows = spans.slice(0, cap).map((span) => {
    const lineStart = content.lastIndexOf("\n", span.start - 1) + 1;
    const newline = content.indexOf("\n", lineStart);
    let snippet = content.slice(lineStart, newline === -1 ? content.length : newline).trim();
    if (snippet.length > 80) snippet = `${snippet.slice(0, 77)}...`;
    return `  L${lineNumberAt(content, span.start)}: ${snippet}`;
  });
  if (spans.length > cap) rows.push(`  ... and ${spans.length - cap} more`);
  return rows.join("\n");
}

/** Leading whitespace made visible: `→` for a tab, `·` for a space. */
function showIndent(line: string): string {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
  return indent.replace(/\t/g, "→").replace(/ /g, "·") + line.slice(indent.length);
}

/** Lines scored per search; beyond this the file is too big for a useful hint. */
const MAX_LINES_SCORED = 20_000;
/** Lines whose exact similarity is computed, out of those the cheap bound ranks best. */
const MAX_CANDIDATES_SCORED = 50;

/**
 * Up to three numbered snippets (`  12| text`, two lines of context) of the parts of `content`
 * most like the first non-blank line of `wanted`, separated by `---`, plus a note when the best
 * candidate differs only in whitespace. "" when nothing is similar enough (ratio > 0.3).
 */
export function closestSections(content: string, wanted: string): string {
  const wantedLines = wanted.split("\n");
  const anchorLine = wantedLines.find((line) => line.trim() !== "");
  if (anchorLine === undefined || content === "") return "";
  const anchor = anchorLine.trim();
  const lines = content.split("\n");
  if (lines.length > MAX_LINES_SCORED) return "";
  // Rank every line by a cheap bound first, then compute the real ratio for the best candidates only.
  const candidates: Array<{ bound: number; index: number }> = [];
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "") return;
    const lengthBound = (2 * Math.min(anchor.length, trimmed.length)) / (anchor.length + trimmed.length);
    const bound = lengthBound > 0.3 ? sharedCharactersBound(anchor, trimmed) : 0;
    if (bound > 0.3) candidates.push({ bound, index });
  });
  candidates.sort((a, b) => b.bound - a.bound || a.index - b.index);
  const scored = candidates
    .slice(0, MAX_CANDIDATES_SCORED)
    .map(({ index }) => ({ ratio: similarity(anchor, (lines[index] ?? "").trim(), 0.3), index }))
    .filter((entry) => entry.ratio > 0.3);
  if (scored.length === 0) return "";
  scored.sort((a, b) => b.ratio - a.ratio || a.index - b.index);
  const top = scored.slice(0, 3);
  const seen = new Set<string>();
  const snippets: string[] = [];
  for (const { index } of top) {
    const start = Math.max(0, index - 2);
    const end = Math.min(lines.length, index + wantedLines.length + 2);
    if (seen.has(`${start}:${end}`)) continue;
    seen.add(`${start}:${end}`);
    snippets.push(
      lines
        .slice(start, end)
        .map((line, k) => `${String(start + k + 1).padStart(4)}| ${line}`)
        .join("\n"),
    );
  }
  let text = snippets.join("\n---\n");
  const best = lines[top[0]?.index ?? 0] ?? "";
  if (best.trim() === anchor && best !== anchorLine) {
    text +=
      "\n\nWhitespace difference (→ = tab, · = space):\n" +
      `  file has: ${showIndent(best)}\n  you sent: ${showIndent(anchorLine)}\n` +
      "Use the exact whitespace the file has.";
  }
  return text;
}

/** `\n\nDid you mean one of these sections?\n…` for a no-match error, or "" when nothing is close. */
export function didYouMean(content: string, wanted: string): string {
  const sections = closestSections(content, wanted);
  return sections === "" ? "" : `\n\nDid you mean one of these sections?\n${sections}`;
}
