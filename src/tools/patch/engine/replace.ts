import { diffChars } from "diff";
import { didYouMean, formatMatchLocations } from "./hints.js";
import { SIMILARITY_STRATEGIES, findMatches, unescapeControls, type Span, type StrategyName } from "./match-strategies.js";
import { reindent } from "./indent.js";
import { mapUnicodeToAscii, unicodeToAscii } from "./normalize.js";

/**
 * Replace mode's engine: find `old_string` in a file's body text with the strategy chain and
 * replace it. Pure: text in, text or an error for the model out; never throws for bad input.
 * Callers pass body text (no BOM, LF line endings) for the file and both strings.
 */
export type ReplaceOutcome =
  | {
      ok: true;
      /** The new body text (equal to the input when `alreadyApplied`). */
      content: string;
      /** How many places were replaced (0 when `alreadyApplied`). */
      count: number;
      /** The strategy that matched; null when `alreadyApplied`. */
      strategy: StrategyName | null;
      /** The file already contains the edit; nothing was changed. */
      alreadyApplied: boolean;
      /** 1-based first line of each replaced region, in the original content. */
      lines: number[];
    }
  | { ok: false; error: string };

/**
 * True when the edit is already in the file: `newString` (≥ 8 non-blank chars) occurs exactly and
 * `oldString` (when different) does not. Conservative so a coincidental short match masks nothing.
 */
export function isAlreadyApplied(content: string, oldString: string, newString: string): boolean {
  if (newString.trim().length < 8 || !content.includes(newString)) return false;
  return oldString === newString || !content.includes(oldString);
}

/**
 * Replaces `oldString` in `content` (every match with `replaceAll`, else exactly one) using the
 * first strategy of `STRATEGIES` that matches. Errors: empty or blank old_string, identical
 * strings, several matches without replaceAll (listed as `L<line>: <snippet>`), several
 * similarity-based matches with replaceAll, escape drift, and no match (with "did you mean"
 * snippets). An edit already present (`isAlreadyApplied`) is a no-op success when no strategy
 * matches or only a similarity-based one does. After a non-exact match the replacement is re-indented to the file's indentation,
 * `\t`/`\r` escapes become real characters where the file has them, and a Unicode-normalized
 * match keeps the file's own typographic characters in the parts the edit did not change.
 */
export function fuzzyReplace(content: string, oldString: string, newString: string, replaceAll = false): ReplaceOutcome {
  if (oldString === "") {
    return { ok: false, error: "old_string cannot be empty. To create or overwrite a whole file use write_file." };
  }
  if (oldString.trim() === "") {
    return { ok: false, error: "old_string is only whitespace; include some of the surrounding text so it matches one place." };
  }
  if (oldString === newString) {
    if (isAlreadyApplied(content, oldString, newString)) return noOp(content);
    return { ok: false, error: "old_string and new_string are identical; there is nothing to change." };
  }
  const found = findMatches(content, oldString);
  if (!found) {
    if (isAlreadyApplied(content, oldString, newString)) return noOp(content);
    return {
      ok: false,
      error:
        "Could not find a match for old_string in the file." +
        didYouMean(content, oldString) +
        "\n\nRe-read the file with read_file and copy old_string exactly, with a few lines of context.",
    };
  }
  const { strategy, spans } = found;
  if (SIMILARITY_STRATEGIES.has(strategy) && isAlreadyApplied(content, oldString, newString)) return noOp(content);
  if (spans.length > 1 && !replaceAll) {
    return {
      ok: false,
      error:
        `Found ${spans.length} matches for old_string. Include more surrounding context to make it unique, ` +
        `or set replace_all to true to change every one. Matches:\n${formatMatchLocations(content, spans)}`,
    };
  }
  if (spans.length > 1 && SIMILARITY_STRATEGIES.has(strategy)) {
    return {
      ok: false,
      error:
        `Found ${spans.length} approximate matches (strategy ${strategy}); replace_all only applies to ` +
        "exact matches. Send old_string exactly as the file has it, whitespace included.",
    };
  }
  if (strategy !== "exact") {
    const drift = escapeDrift(content, spans, oldString, newString);
    if (drift) return { ok: false, error: drift };
  }
  let replacement = newString;
  if (strategy === "escape_normalized" && !newString.includes("\n")) replacement = unescapeControls(newString);
  replacement = unescapeWhereFileHas(replacement, spans.map((span) => content.slice(span.start, span.end)).join(""));

  let result = content;
  for (const span of [...spans].reverse()) {
    const region = content.slice(span.start, span.end);
    let text = replacement;
    if (strategy === "unicode_normalized") text = keepFileCharacters(region, oldString, text);
    if (strategy !== "exact") text = reindent(region, oldString, text);
    result = result.slice(0, span.start) + text + result.slice(span.end);
  }
  const lines = spans.map((span) => content.slice(0, span.start).split("\n").length);
  return { ok: true, content: result, count: spans.length, strategy, alreadyApplied: false, lines };
}

function noOp(content: string): ReplaceOutcome {
  return { ok: true, content, count: 0, strategy: null, alreadyApplied: true, lines: [] };
}

/**
 * An error when `\'` or `\"` appears in both old_string and new_string but not in the matched
 * text: a transport added backslashes, and writing new_string would put them into the file.
 */
function escapeDrift(content: string, spans: readonly Span[], oldString: string, newString: string): string | undefined {
  const matched = spans.map((span) => content.slice(span.start, span.end)).join("");
  for (const suspect of ["\\'", '\\"']) {
    if (newString.includes(suspect) && oldString.includes(suspect) && !matched.includes(suspect)) {
      return (
        `old_string and new_string contain the escape ${suspect} but the matched text of the file does not; ` +
        `this is usually an extra backslash added in transit. Send the quotes without a backslash.`
      );
    }
  }
  return undefined;
}

/** Literal `\t` / `\r` become a tab / carriage return, each only when the matched text has that character. */
function unescapeWhereFileHas(text: string, matched: string): string {
  let out = text;
  if (out.includes("\\t") && matched.includes("\t")) out = out.replace(/\\t/g, "\t");
  if (out.includes("\\r") && matched.includes("\r")) out = out.replace(/\\r/g, "\r");
  return out;
}

/**
 * The replacement with the file's typographic characters kept: the edit old_string → replacement
 * is replayed onto the file region, so text the model did not change keeps the region's own
 * characters (em dashes, smart quotes, NBSP). Falls back to `replacement` when the region and
 * old_string differ beyond those characters.
 */
export function keepFileCharacters(region: string, oldString: string, replacement: string): string {
  const mapped = mapUnicodeToAscii(region);
  const normalizedOld = unicodeToAscii(oldString);
  if (mapped.text !== normalizedOld) return replacement;
  let out = "";
  let at = 0;
  let lastUnit = -1;
  for (const part of diffChars(normalizedOld, replacement)) {
    if (part.added) {
      out += part.value;
      continue;
    }
    const end = at + part.value.length;
    if (!part.removed) {
      for (let i = at; i < end; i++) {
        const unit = mapped.unitStart[i] ?? 0;
        if (unit !== lastUnit) out += region.slice(unit, mapped.unitEnd[i]);
        lastUnit = unit;
      }
    }
    at = end;
  }
  return out;
}
