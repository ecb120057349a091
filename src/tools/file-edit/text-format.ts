/**
 * Line endings and byte-order marks of text files, so edits keep a file's own conventions.
 * Pure helpers; the edit tools work on "body" text (no BOM, `\n` line endings) and convert back.
 */

export interface TextFormat {
  /** The text starts with a UTF-8 byte-order mark (U+FEFF). */
  bom: boolean;
  /** The line ending the text mostly uses. */
  eol: "\n" | "\r\n";
}

const BOM = "\uFEFF";

/**
 * The BOM and dominant line ending of `text`: CRLF when CRLF endings outnumber bare LF endings,
 * else LF (so text without line breaks counts as LF).
 */
export function detectFormat(text: string): TextFormat {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return { bom: text.startsWith(BOM), eol: crlf > lf ? "\r\n" : "\n" };
}

/** `text` without a leading BOM and with every CRLF turned into LF (lone CRs are kept). */
export function toBody(text: string): string {
  const withoutBom = text.startsWith(BOM) ? text.slice(1) : text;
  return withoutBom.replace(/\r\n/g, "\n");
}

/** Splits stored text into its body and format. `encodeText(body, format)` gives back text with the same conventions. */
export function decodeText(text: string): { body: string; format: TextFormat } {
  return { body: toBody(text), format: detectFormat(text) };
}

/**
 * Stored text for `body` in `format`: the body's line endings (LF or CRLF, even mixed) become the
 * format's, and a BOM is added when the format has one. A BOM already in `body` is not doubled.
 */
export function encodeText(body: string, format: TextFormat): string {
  const lf = toBody(body);
  const text = format.eol === "\r\n" ? lf.replace(/\n/g, "\r\n") : lf;
  return format.bom ? BOM + text : text;
}
