/**
 * Turns what a user or model typed into a plan for state.db's indexes, such that no input can make
 * SQLite raise an FTS5 syntax error.
 *
 * Accepted syntax (Hermes' `session_search`): words (implicit AND), `OR`, `NOT`, "quoted phrases",
 * `prefix*`. Every word or phrase is emitted as an FTS5 string (double-quoted, inner quotes doubled),
 * so `:`, `(`, `-`, `^`, `+`, `NEAR` or an unbalanced quote are plain text. Operators are kept only
 * between two terms. Words with no letter or digit are dropped.
 *
 * Queries containing CJK / Thai-like characters (scripts.ts) go to the trigram index as an AND of
 * substrings (operators and `*` ignored); substrings shorter than 3 characters, which trigram cannot
 * look up, become LIKE conditions on the candidate rows, and when every term is that short the
 * plan is a LIKE scan over the rows that contain such scripts (a partial index keeps it off the
 * other rows).
 */
import { hasNoSpaceScript } from "./scripts.js";

export const MAX_QUERY_CHARS = 2048;
const MAX_TERMS = 16;

export type SearchPlan =
  | { kind: "none" }
  /** `match` for `messages_fts`; `terms` are the plain words, for highlighting elsewhere. */
  | { kind: "words"; match: string; terms: string[] }
  /** `match` for `messages_fts_trigram` (terms of 3+ chars) and LIKE patterns for shorter ones. */
  | { kind: "trigram"; match: string; likes: string[]; terms: string[] }
  /** Only LIKE patterns: every term is shorter than 3 characters. */
  | { kind: "substring"; likes: string[]; terms: string[] };

interface Term {
  text: string;
  prefix: boolean;
}
type Token = Term | { op: "AND" | "OR" | "NOT" };

const SEARCHABLE = /[\p{L}\p{N}]/u;

function lex(query: string): Token[] {
  const tokens: Token[] = [];
  for (const match of query.matchAll(/"([^"]*)"?|(\S+)/g)) {
    const phrase = match[1];
    if (phrase !== undefined) {
      tokens.push({ text: phrase.trim(), prefix: false });
      continue;
    }
    const word = match[2]!;
    if (word === "AND" || word === "OR" || word === "NOT") {
      tokens.push({ op: word });
      continue;
    }
    const prefix = /[^*]\*+$/.test(word);
    tokens.push({ text: prefix ? word.replace(/\*+$/, "") : word, prefix });
  }
  return tokens.filter((token) => "op" in token || SEARCHABLE.test(token.text));
}

/** An FTS5 string literal. */
export function quoteFts(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** A LIKE pattern (ESCAPE '\') matching rows that contain `text`. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The plan for `query` (trimmed, cut to 2,048 characters; control characters read as spaces —
 * SQLite ends an FTS5 string at a NUL, which would leave it unterminated). Never throws.
 */
export function planSearch(query: string): SearchPlan {
  const tokens = lex(query.slice(0, MAX_QUERY_CHARS).replace(/[\u0000-\u001f\u007f]/g, " "));
  const terms = tokens.filter((token): token is Term => !("op" in token)).slice(0, MAX_TERMS);
  if (terms.length === 0) return { kind: "none" };
  const texts = terms.map((term) => term.text);
  if (hasNoSpaceScript(query)) {
    const long = texts.filter((text) => [...text].length >= 3);
    const likes = texts.filter((text) => [...text].length < 3).map(likeContains);
    if (long.length === 0) return { kind: "substring", likes, terms: texts };
    return { kind: "trigram", match: long.map(quoteFts).join(" AND "), likes, terms: texts };
  }
  return { kind: "words", match: wordExpression(tokens), terms: texts };
}

/** Terms in order with operators kept only between two terms (implicit AND otherwise). */
function wordExpression(tokens: Token[]): string {
  const parts: string[] = [];
  let pending: "AND" | "OR" | "NOT" | undefined;
  let count = 0;
  for (const token of tokens) {
    if ("op" in token) {
      if (count > 0) pending = token.op;
      continue;
    }
    if (count >= MAX_TERMS) break;
    if (count > 0) parts.push(pending ?? "AND");
    parts.push(quoteFts(token.text) + (token.prefix ? "*" : ""));
    pending = undefined;
    count += 1;
  }
  return parts.join(" ");
}
