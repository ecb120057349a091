/**
 * The content scan of skills: the memory threat scanner (`../memory/threats.ts`, the one scanner
 * for text that later steers the agent) in its `skill` scope (procedures may name token variables
 * in documented requests, hold HTML comments, say "you are now ready"). Two adaptations, no rules
 * of its own: markdown code spans (`` `npm test` ``) lose their backticks outside fenced blocks, so a
 * documented command is not read as shell command substitution (inside fences backticks are
 * shell and stay); and text longer than the scanner's window is scanned in overlapping windows.
 * Pure; never throws.
 */
import { MAX_SCAN_CHARS, threatReason } from "../memory/threats.js";

/** Overlap between windows: longer than any bounded pattern of the scanner reaches. */
const OVERLAP = 4096;
const WINDOW = MAX_SCAN_CHARS - OVERLAP;

/**
 * Why `text` may not be stored as (or shown from) a skill — a short reason such as "it tries to
 * override instructions" — or undefined when the scan finds nothing.
 */
export function skillThreat(text: string): string | undefined {
  const prose = unquoteCodeSpans(text);
  // Consecutive windows overlap by OVERLAP chars, so every match shorter than that lies wholly in one.
  for (let start = 0; ; start += WINDOW) {
    const found = threatReason(prose.slice(start, start + MAX_SCAN_CHARS), "skill");
    if (found) return found;
    if (start + MAX_SCAN_CHARS >= prose.length) return undefined;
  }
}

/** Inline code spans outside fenced blocks with their backtick delimiters replaced by spaces. */
function unquoteCodeSpans(text: string): string {
  let fence: string | undefined;
  return text
    .split("\n")
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker) {
        if (fence === undefined) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
        return line;
      }
      if (fence !== undefined) return line;
      return line.replace(/(`+)([^`]+?)\1(?!`)/g, (_whole, ticks: string, code: string) => `${" ".repeat(ticks.length)}${code}${" ".repeat(ticks.length)}`);
    })
    .join("\n");
}
