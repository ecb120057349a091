/**
 * Character-level normalization of a command before it is parsed for detection. The result is
 * only ever scanned, never run, so it may over-approximate what a shell would see: a spelling
 * that *could* mean `rm` is treated as `rm`.
 *
 * Quote and backslash obfuscation (`r\m`, `r''m`, `"r"m`, `$'\x72m'`) is not handled here but
 * by the lexer, which removes quotes the way a shell does and so keeps quoted prose as data.
 */

/** Placeholder for text whose value cannot be known statically (an unresolvable `$(…)`). */
export const UNKNOWN = "\u0001";

// CSI (ESC [ … final), OSC (ESC ] … BEL | ESC \), other two-byte escapes, and 8-bit CSI.
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// Zero-width and invisible formatting characters that NFKC keeps.
const INVISIBLE_RE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;
// Control characters other than tab and newline (NUL included), DEL, and C1 controls.
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// `$IFS`, `${IFS}`, `${IFS:0:1}`, `${IFS%??}` … all expand to whitespace in practice.
const IFS_RE = /\$\{IFS[^}]*\}|\$IFS(?![A-Za-z0-9_])/g;

/**
 * Returns `raw` with ANSI escapes, NULs, other control and invisible characters removed,
 * CRLF/CR turned into LF, Unicode NFKC applied (fullwidth `ｒｍ` becomes `rm`), backslash-newline
 * continuations joined, and `$IFS` spellings turned into a space. Pure; never throws.
 */
export function normalizeCommand(raw: string): string {
  let text = raw.replace(ANSI_RE, "");
  text = text.replace(/\r\n?/g, "\n");
  text = text.normalize("NFKC");
  text = text.replace(INVISIBLE_RE, "");
  text = text.replace(CONTROL_RE, "");
  text = text.replace(/\\\n/g, "");
  text = text.replace(IFS_RE, " ");
  return text;
}
