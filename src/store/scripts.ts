/**
 * Scripts written without spaces between words (Chinese, Japanese, Korean eojeol particles, Thai,
 * Lao, Khmer, Myanmar). FTS5's `unicode61` tokenizer keeps a whole run of such characters as one
 * token, so a word inside a sentence cannot be found by it; text containing any of these characters
 * is also indexed by the `trigram` index, and a query containing any of them is answered from there.
 *
 * One list of code-point ranges feeds both the SQL side (a GLOB character class, used by the
 * schema's view and triggers, so it must never change without a migration) and the query side (a
 * JS RegExp).
 */
const RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0e00, 0x0eff], // Thai, Lao
  [0x1000, 0x109f], // Myanmar
  [0x1100, 0x11ff], // Hangul Jamo
  [0x1780, 0x17ff], // Khmer
  [0x2e80, 0x2fdf], // CJK radicals, Kangxi radicals
  [0x3040, 0x30ff], // Hiragana, Katakana
  [0x3100, 0x318f], // Bopomofo, Hangul compatibility Jamo
  [0x31f0, 0x31ff], // Katakana phonetic extensions
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7af], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xff66, 0xff9f], // half-width Katakana
  [0x20000, 0x2ffff], // CJK extensions B–F, compatibility supplement
];

/** `[…]` GLOB character class matching one character of the scripts above. */
export const NO_SPACE_SCRIPT_GLOB_CLASS = `[${RANGES.map(([a, b]) => `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`).join("")}]`;

/**
 * The condition schema versions 1–3 used: the GLOB alone, evaluated character by character over the
 * whole text on every insert. Kept only so migration 1 stays as released.
 */
export function sqlHasNoSpaceScriptV1(column: string): string {
  return `${column} GLOB '*${NO_SPACE_SCRIPT_GLOB_CLASS}*'`;
}

/**
 * SQL condition (for column `column`) true when the text contains a character of those scripts:
 * the GLOB, behind a test that rules out text of single-byte characters only (every range above
 * encodes as 3–4 bytes in UTF-8, so such text has more bytes than characters). Same rows as
 * `sqlHasNoSpaceScriptV1` for every text value, valid UTF-8 or not (a BLOB is never matched, as
 * the old GLOB does not match one in SQLite builds with LIKE_DOESNT_MATCH_BLOBS, better-sqlite3's
 * included). On ASCII text, the common message, ~10 µs instead of ~600 µs for 3 KB.
 */
export function sqlHasNoSpaceScript(column: string): string {
  return `(length(CAST(${column} AS BLOB)) > length(${column}) AND ${sqlHasNoSpaceScriptV1(column)})`;
}

const NO_SPACE_SCRIPT_RE = new RegExp(
  `[${RANGES.map(([a, b]) => `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`).join("")}]`,
  "u",
);

/** True when `text` contains a character of a script written without spaces. */
export function hasNoSpaceScript(text: string): boolean {
  return NO_SPACE_SCRIPT_RE.test(text);
}
