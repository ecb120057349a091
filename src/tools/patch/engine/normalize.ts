import { diffChars } from "diff";

/**
 * Text normalizations shared by the replace strategies and the V4A hunk search, with position
 * maps back to the original text. Pure functions.
 */

/** Typographic characters models type as ASCII; the file keeps its own when a match is made through them. */
export const UNICODE_TO_ASCII: Readonly<Record<string, string>> = {
  "\u201c": '"', // left double quote
  "\u201d": '"', // right double quote
  "\u201e": '"', // low double quote
  "\u201f": '"', // high reversed double quote
  "\u2018": "'", // left single quote
  "\u2019": "'", // right single quote
  "\u201a": "'", // low single quote
  "\u201b": "'", // high reversed single quote
  "\u2010": "-", // hyphen
  "\u2011": "-", // non-breaking hyphen
  "\u2012": "-", // figure dash
  "\u2013": "-", // en dash
  "\u2014": "--", // em dash
  "\u2015": "--", // horizontal bar
  "\u2212": "-", // minus sign
  "\u2026": "...", // ellipsis
  "\u00a0": " ", // no-break space
  "\u2000": " ",
  "\u2001": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200a": " ",
  "\u202f": " ", // narrow no-break space
  "\u205f": " ", // medium mathematical space
  "\u3000": " ", // ideographic space
};

const UNICODE_CHARACTERS = new RegExp(`[${Object.keys(UNICODE_TO_ASCII).join("")}]`, "g");

/** `text` with every character of UNICODE_TO_ASCII replaced by its ASCII spelling. */
export function unicodeToAscii(text: string): string {
  return text.replace(UNICODE_CHARACTERS, (char) => UNICODE_TO_ASCII[char] ?? char);
}

/** `text` with runs of spaces and tabs collapsed to one space (the text of `collapseBlanks`). */
export function collapseBlanksText(text: string): string {
  return text.replace(/[ \t]+/g, " ");
}

/**
 * A normalized copy of a text that remembers, for each of its characters, which "unit" of the
 * original produced it (one character, or a run of blanks collapsed into one space).
 */
export interface MappedText {
  text: string;
  /** Per character of `text`: where its unit starts in the original. */
  unitStart: number[];
  /** Per character of `text`: where its unit ends (exclusive) in the original. */
  unitEnd: number[];
}

/**
 * Builds a MappedText by stepping through `original`: `step(original, i)` returns how many
 * original characters (≥ 1) it consumed at `i` and what it produced for them.
 */
function mapText(original: string, step: (text: string, i: number) => { consumed: number; output: string }): MappedText {
  let text = "";
  const unitStart: number[] = [];
  const unitEnd: number[] = [];
  for (let i = 0; i < original.length; ) {
    const { consumed, output } = step(original, i);
    for (let k = 0; k < output.length; k++) {
      unitStart.push(i);
      unitEnd.push(i + consumed);
    }
    text += output;
    i += consumed;
  }
  return { text, unitStart, unitEnd };
}

/** Runs of spaces and tabs collapsed to one space (newlines kept). */
export function collapseBlanks(original: string): MappedText {
  return mapText(original, (text, i) => {
    if (text[i] !== " " && text[i] !== "\t") return { consumed: 1, output: text[i] ?? "" };
    let end = i;
    while (text[end] === " " || text[end] === "\t") end++;
    return { consumed: end - i, output: " " };
  });
}

/** Typographic characters replaced by their ASCII spellings (UNICODE_TO_ASCII). */
export function mapUnicodeToAscii(original: string): MappedText {
  return mapText(original, (text, i) => {
    const char = text[i] ?? "";
    return { consumed: 1, output: UNICODE_TO_ASCII[char] ?? char };
  });
}

/**
 * The original span of the normalized span `[start, end)`, or undefined when either end falls
 * inside a unit (e.g. only the first `-` of an em dash's `--`).
 */
export function originalSpan(mapped: MappedText, start: number, end: number): { start: number; end: number } | undefined {
  if (end <= start || end > mapped.text.length) return undefined;
  const startsUnit = start === 0 || mapped.unitStart[start - 1] !== mapped.unitStart[start];
  const endsUnit = end === mapped.text.length || mapped.unitStart[end] !== mapped.unitStart[end - 1];
  if (!startsUnit || !endsUnit) return undefined;
  return { start: mapped.unitStart[start] ?? 0, end: mapped.unitEnd[end - 1] ?? 0 };
}

/**
 * How alike two strings are, 0…1: twice the characters they share in order (a longest common
 * subsequence, as computed by `diff`) over their total length, like difflib's ratio. Below
 * `atLeast` the value is only an upper bound (or 0): the comparison stops as soon as the strings
 * cannot reach it, which keeps long, unlike lines cheap.
 */
export function similarity(a: string, b: string, atLeast = 0): number {
  if (a === b) return 1;
  const total = a.length + b.length;
  if (total === 0) return 1;
  const lengthBound = (2 * Math.min(a.length, b.length)) / total;
  if (lengthBound < atLeast) return lengthBound;
  const bound = sharedCharactersBound(a, b);
  if (bound < atLeast) return bound;
  const parts = diffChars(a, b, { maxEditLength: Math.ceil((1 - atLeast) * total) });
  if (parts === undefined) return 0;
  let common = 0;
  for (const part of parts) if (!part.added && !part.removed) common += part.value.length;
  return (2 * common) / total;
}

/**
 * An upper bound of `similarity`, in linear time: twice the characters the two strings have in
 * common regardless of order, over their total length.
 */
export function sharedCharactersBound(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  const counts = new Map<number, number>();
  for (let i = 0; i < a.length; i++) counts.set(a.charCodeAt(i), (counts.get(a.charCodeAt(i)) ?? 0) + 1);
  let shared = 0;
  for (let i = 0; i < b.length; i++) {
    const left = counts.get(b.charCodeAt(i)) ?? 0;
    if (left > 0) {
      shared++;
      counts.set(b.charCodeAt(i), left - 1);
    }
  }
  return (2 * shared) / total;
}

/** The leading spaces and tabs of a line. */
export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}
