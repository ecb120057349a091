/**
 * A bash-like lexer for detection: turns normalized command text into words, control operators
 * and redirections. Quotes and backslashes are removed the way a shell removes them (so `r\m`,
 * `r''m`, `"r"m` and `$'\x72m'` all become the word `rm`), while the pieces a shell would
 * expand — `$NAME`, `${NAME}`, `$(…)`, backticks — are kept as separate parts for the resolver.
 * Heredoc bodies are attached to their redirection. Unterminated quotes or substitutions run to
 * the end of the text. Pure; never throws.
 */

/** One piece of a shell word. `quoted` parts are not subject to field splitting. */
export type WordPart =
  | { kind: "text"; text: string; quoted: boolean }
  | { kind: "var"; name: string; raw: string; quoted: boolean }
  | { kind: "sub"; source: string; quoted: boolean };

export interface Word {
  parts: WordPart[];
  /** Set (and `parts` empty) when the word is a process substitution `<(…)` / `>(…)`. */
  processSubstitution?: string;
}

export type ControlOp = ";" | "&&" | "||" | "|" | "|&" | "&" | "\n" | "(" | ")";

export interface RawRedirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `<<`, `<<-`, `<<<`, `>&`, `<&`. */
  op: string;
  /** Explicit file descriptor (`2>`), when given. */
  fd?: number;
  /** Target word; for `<<`/`<<-` the delimiter; missing at the end of the text. */
  target?: Word;
  /** For heredocs: the body, and whether the delimiter was quoted (no expansion in the body). */
  heredoc?: { body: string; quoted: boolean };
}

export type Token =
  | { type: "word"; word: Word }
  | { type: "op"; op: ControlOp }
  | { type: "redirect"; redirect: RawRedirect };

const BLANK = new Set([" ", "\t"]);
const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const REDIRECT_OPS = ["<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">"];
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Splits normalized shell text into tokens. */
export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  const pending: { redirect: RawRedirect; delimiter: string; stripTabs: boolean }[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    const two = src.slice(i, i + 2);
    if (BLANK.has(c)) {
      i++;
    } else if (c === "\n") {
      tokens.push({ type: "op", op: "\n" });
      i = readHeredocBodies(src, i + 1, pending.splice(0));
    } else if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (src.startsWith("&>", i)) {
      const op = src.startsWith("&>>", i) ? "&>>" : "&>";
      const { redirect, end } = readRedirectTarget(src, i + op.length, op, undefined);
      tokens.push({ type: "redirect", redirect });
      i = end;
    } else if (two === "&&" || two === "||" || two === "|&") {
      tokens.push({ type: "op", op: two });
      i += 2;
    } else if (c === ";") {
      tokens.push({ type: "op", op: ";" });
      i += src.startsWith(";;&", i) ? 3 : two === ";;" || two === ";&" ? 2 : 1;
    } else if (c === "&" || c === "|" || c === "(" || c === ")") {
      tokens.push({ type: "op", op: c });
      i++;
    } else if (two === "<(" || two === ">(") {
      const close = findClosingParen(src, i + 1);
      tokens.push({ type: "word", word: { parts: [], processSubstitution: src.slice(i + 2, close) } });
      i = close + 1;
    } else if (c === "<" || c === ">" || /^\d+[<>]/.test(src.slice(i, i + 12))) {
      const fdText = /^\d*/.exec(src.slice(i))?.[0] ?? "";
      const at = i + fdText.length;
      const op = REDIRECT_OPS.find((candidate) => src.startsWith(candidate, at)) ?? ">";
      const fd = fdText ? Number(fdText) : undefined;
      const { redirect, end } = readRedirectTarget(src, at + op.length, op, fd);
      if (op === "<<" || op === "<<-") {
        redirect.heredoc = { body: "", quoted: redirect.target?.parts.some((part) => part.quoted) ?? false };
        pending.push({ redirect, delimiter: literalText(redirect.target) ?? "", stripTabs: op === "<<-" });
      }
      tokens.push({ type: "redirect", redirect });
      i = end;
    } else {
      const { word, end } = readWord(src, i);
      tokens.push({ type: "word", word });
      i = end;
    }
  }
  return tokens;
}

/** Reads a heredoc body as a shell would expand it (unquoted delimiter): like a double-quoted string. */
export function lexHeredocBody(body: string): Word {
  const parts: WordPart[] = [];
  readDoubleQuoted(body, 0, parts, undefined);
  return { parts };
}

/** The word's text when it has no expansions, else undefined. */
export function literalText(word: Word | undefined): string | undefined {
  if (!word || word.processSubstitution !== undefined) return undefined;
  let text = "";
  for (const part of word.parts) {
    if (part.kind !== "text") return undefined;
    text += part.text;
  }
  return text;
}

/** True when no part of the word was quoted or escaped. */
export function isBareWord(word: Word): boolean {
  return word.parts.every((part) => !part.quoted);
}

/** Index of the `)` matching the `(` at `open`, skipping quotes; `src.length` when unterminated. */
function findClosingParen(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    const c = src[j];
    if (c === "\\") j++;
    else if (c === "'") j = indexOrEnd(src, "'", j + 1);
    else if (c === '"') j = skipDoubleQuoted(src, j + 1);
    else if (c === "`") j = findBacktickEnd(src, j + 1);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j;
  }
  return src.length;
}

function readRedirectTarget(src: string, from: number, op: string, fd: number | undefined): { redirect: RawRedirect; end: number } {
  let i = from;
  while (i < src.length && BLANK.has(src[i] as string)) i++;
  const redirect: RawRedirect = fd === undefined ? { op } : { op, fd };
  if (i >= src.length || META.has(src[i] as string)) return { redirect, end: i };
  const { word, end } = readWord(src, i);
  redirect.target = word;
  return { redirect, end };
}

function readHeredocBodies(src: string, from: number, docs: { redirect: RawRedirect; delimiter: string; stripTabs: boolean }[]): number {
  let i = from;
  for (const doc of docs) {
    const lines: string[] = [];
    while (i < src.length) {
      const newline = src.indexOf("\n", i);
      const lineEnd = newline === -1 ? src.length : newline;
      const line = src.slice(i, lineEnd);
      i = newline === -1 ? src.length : newline + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) break;
      lines.push(doc.stripTabs ? line.replace(/^\t+/, "") : line);
    }
    if (doc.redirect.heredoc) doc.redirect.heredoc.body = lines.map((line) => `${line}\n`).join("");
  }
  return i;
}

function readWord(src: string, start: number): { word: Word; end: number } {
  const parts: WordPart[] = [];
  let i = start;
  while (i < src.length) {
    const c = src[i] as string;
    if (META.has(c)) break;
    if (c === "\\") {
      pushText(parts, src[i + 1] ?? "", true);
      i += 2;
    } else if (c === "'") {
      const end = indexOrEnd(src, "'", i + 1);
      pushText(parts, src.slice(i + 1, end), true);
      i = end + 1;
    } else if (c === "$" && src[i + 1] === "'") {
      const { text, end } = readAnsiC(src, i + 2);
      pushText(parts, text, true);
      i = end;
    } else if (c === "$" && src[i + 1] === '"') {
      i = readDoubleQuoted(src, i + 2, parts, '"');
    } else if (c === '"') {
      i = readDoubleQuoted(src, i + 1, parts, '"');
    } else if (c === "$" || c === "`") {
      i = readExpansion(src, i, parts, false);
    } else {
      pushText(parts, c, false);
      i++;
    }
  }
  return { word: { parts }, end: i };
}

/** Reads up to `terminator` (or the end), appending parts; returns the index after the terminator. */
function readDoubleQuoted(src: string, start: number, parts: WordPart[], terminator: string | undefined): number {
  pushText(parts, "", true);
  let i = start;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === terminator) return i + 1;
    if (c === "\\") {
      // Inside double quotes a backslash escapes only $ ` " \ and newline; before anything else it stays.
      const next = src[i + 1] ?? "";
      pushText(parts, '$`"\\\n'.includes(next) ? next : `\\${next}`, true);
      i += 2;
    } else if (c === "$" || c === "`") {
      i = readExpansion(src, i, parts, true);
    } else {
      pushText(parts, c, true);
      i++;
    }
  }
  return i;
}

/** Reads `$…` or a backtick substitution at `i`; returns the index after it. */
function readExpansion(src: string, i: number, parts: WordPart[], quoted: boolean): number {
  if (src[i] === "`") {
    const end = findBacktickEnd(src, i + 1);
    parts.push({ kind: "sub", source: src.slice(i + 1, end).replace(/\\([`$\\])/g, "$1"), quoted });
    return end + 1;
  }
  const next = src[i + 1];
  if (next === "(" && src[i + 2] === "(") {
    const end = findClosingParen(src, i + 1);
    pushText(parts, src.slice(i, end + 1), quoted);
    return end + 1;
  }
  if (next === "(") {
    const end = findClosingParen(src, i + 1);
    parts.push({ kind: "sub", source: src.slice(i + 2, end), quoted });
    return end + 1;
  }
  if (next === "{") {
    const end = indexOrEnd(src, "}", i + 2);
    const inner = src.slice(i + 2, end);
    if (NAME_RE.exec(inner)?.[0] === inner || /^[0-9@*]$/.test(inner)) {
      parts.push({ kind: "var", name: inner, raw: src.slice(i, end + 1), quoted });
    } else {
      pushText(parts, src.slice(i, end + 1), quoted);
    }
    return end + 1;
  }
  const name = next !== undefined && /[0-9@*]/.test(next) ? next : NAME_RE.exec(src.slice(i + 1))?.[0];
  if (name) {
    parts.push({ kind: "var", name, raw: `$${name}`, quoted });
    return i + 1 + name.length;
  }
  pushText(parts, "$", quoted);
  return i + 1;
}

const ANSI_C_ESCAPES: Record<string, string> = {
  n: "\n", t: "\t", r: "\r", a: "\u0007", b: "\b", e: "\u001b", E: "\u001b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
};

/** Decodes a `$'…'` string starting after the opening quote. */
function readAnsiC(src: string, start: number): { text: string; end: number } {
  let text = "";
  let i = start;
  while (i < src.length && src[i] !== "'") {
    if (src[i] !== "\\") {
      text += src[i];
      i++;
      continue;
    }
    const esc = src[i + 1] ?? "";
    const hex = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(src.slice(i + 1));
    if (hex) {
      const code = hex[4] !== undefined ? parseInt(hex[4], 8) : parseInt(hex[1] ?? hex[2] ?? hex[3] ?? "0", 16);
      text += code <= 0x10ffff ? String.fromCodePoint(code) : "";
      i += 1 + hex[0].length;
    } else {
      text += ANSI_C_ESCAPES[esc] ?? esc;
      i += 2;
    }
  }
  return { text, end: i + 1 };
}

function pushText(parts: WordPart[], text: string, quoted: boolean): void {
  const last = parts[parts.length - 1];
  if (last?.kind === "text" && last.quoted === quoted) last.text += text;
  else parts.push({ kind: "text", text, quoted });
}

function indexOrEnd(src: string, needle: string, from: number): number {
  const at = src.indexOf(needle, from);
  return at === -1 ? src.length : at;
}

function findBacktickEnd(src: string, from: number): number {
  for (let j = from; j < src.length; j++) {
    if (src[j] === "\\") j++;
    else if (src[j] === "`") return j;
  }
  return src.length;
}

function skipDoubleQuoted(src: string, from: number): number {
  for (let j = from; j < src.length; j++) {
    if (src[j] === "\\") j++;
    else if (src[j] === '"') return j;
  }
  return src.length;
}
