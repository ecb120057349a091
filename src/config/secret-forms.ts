/**
 * The spellings of registered secrets that command output can carry, and one compiled matcher
 * that masks all of them. Pure; no I/O.
 *
 * A secret is matched as itself, JSON-escaped, reversed (`rev`), as lower- and upper-case hex
 * (`xxd -p`), and as standard and URL-safe base64. Inside a longer base64 stream (`cat .env | base64` encodes
 * `KEY=value\n…`) the secret's first byte can sit at any of the three positions of a 3-byte group,
 * so each alignment has its own encoding; only its stable inner part (the characters made from
 * the secret's bits alone) is matched, which leaves at most two characters of partial bits on
 * either side. Encoded dumps wrapped onto several lines (GNU `base64` at 76 columns, `xxd -p` at
 * 60) are matched across the line breaks too, including JSON-escaped breaks (`\n` inside a tool's
 * JSON result) and read_file's `N|` line gutters; the breaks are kept, so masked output keeps its
 * shape. `od` / `hexdump` layouts (spaced bytes, offset columns) are not recognised.
 */

/** What an encoded (or reversed) spelling of a secret is replaced with. */
export const ENCODED_MASK = "***";

/** Encoded spellings are computed on pieces of at most this many bytes, so huge values stay cheap. */
const CHUNK_BYTES = 144;
/** Spellings shorter than this are too likely to occur by chance and are not matched. */
const MIN_FORM_LENGTH = 8;

/** A line break inside a dump: real, or JSON-escaped, optionally followed by a read_file gutter `12|`. */
const BREAK = String.raw`(?:\r?\n|\\r\\n|\\n)(?:\d+\|)?`;
/**
 * Every line but the last of a wrapped dump is full (60 or 76 columns), so only a break after at
 * least this many encoded characters can be inside one; ordinary text is skipped quickly.
 */
const MIN_WRAPPED_LINE = 16;
/** V8 stops optimising a regex past 20 KB of source; alternations are split below that. */
const MAX_ALTERNATION_SOURCE = 16_000;
const BREAK_RE = new RegExp(BREAK, "g");

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The characters of base64(`bytes`) that depend on `bytes` alone when they start `align` bytes
 * into a 3-byte group: from the first character wholly after the `align` leading bytes to the
 * last character wholly inside `bytes`.
 */
export function base64Inner(bytes: Uint8Array, align: 0 | 1 | 2): string {
  const padded = Buffer.concat([Buffer.alloc(align), bytes]);
  const from = Math.ceil((8 * align) / 6);
  const to = Math.floor((8 * (align + bytes.length)) / 6);
  return padded.toString("base64").slice(from, to);
}

/** Pieces of at most `CHUNK_BYTES` bytes; a short tail is merged into the piece before it. */
function chunks(bytes: Buffer): Buffer[] {
  if (bytes.length <= CHUNK_BYTES * 1.5) return [bytes];
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) pieces.push(bytes.subarray(at, at + CHUNK_BYTES));
  const tail = pieces[pieces.length - 1] as Buffer;
  if (pieces.length > 1 && tail.length < CHUNK_BYTES / 2) {
    pieces.pop();
    const last = pieces.pop() as Buffer;
    pieces.push(Buffer.concat([last, tail]));
  }
  return pieces;
}

/**
 * The encoded spellings of `secret` (UTF-8 bytes): hex in both cases, and base64 and URL-safe
 * base64 at the three alignments. Long secrets are encoded piece by piece. Deduplicated.
 */
export function encodedForms(secret: string): string[] {
  const forms = new Set<string>();
  for (const piece of chunks(Buffer.from(secret, "utf8"))) {
    const hex = piece.toString("hex");
    forms.add(hex);
    forms.add(hex.toUpperCase());
    for (const align of [0, 1, 2] as const) {
      const inner = base64Inner(piece, align);
      forms.add(inner);
      forms.add(inner.replaceAll("+", "-").replaceAll("/", "_"));
    }
  }
  return [...forms].filter((form) => form.length >= MIN_FORM_LENGTH && form !== secret);
}

/** `secret` with its characters in reverse order (what `rev` prints for a line holding it). */
export function reversed(secret: string): string {
  return [...secret].reverse().join("");
}

/** Masks every known spelling of a fixed set of secrets in a text. */
export interface SecretMatcher {
  /** `text` with each spelling replaced (see `compileSecretMatcher`); unchanged when nothing matches. */
  mask(text: string): string;
}

/**
 * Compiles the matcher for `secrets` (compile once per change of the set; masking is linear in
 * the text). A secret itself is replaced with `maskOf(secret)`; its JSON-escaped, reversed and
 * encoded spellings with `***`, one per line piece when a wrapped dump is masked across lines.
 * Longer spellings win over shorter ones that start at the same place.
 */
export function compileSecretMatcher(secrets: Iterable<string>, maskOf: (secret: string) => string): SecretMatcher {
  const replacement = new Map<string, string>();
  const encoded = new Set<string>();
  const list = [...secrets];
  for (const secret of list) replacement.set(secret, maskOf(secret));
  for (const secret of list) {
    const back = reversed(secret);
    if (back.length >= MIN_FORM_LENGTH && !replacement.has(back)) replacement.set(back, ENCODED_MASK);
    // Inside a JSON result (read_file's content) `"` and `\` arrive escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (!replacement.has(escaped)) replacement.set(escaped, ENCODED_MASK);
    for (const form of encodedForms(secret)) {
      encoded.add(form);
      if (!replacement.has(form)) replacement.set(form, ENCODED_MASK);
    }
  }
  if (replacement.size === 0) return { mask: (text) => text };
  const all = alternations(replacement.keys());
  const wrapped = alternations(encoded);
  const shortest = Math.min(...[...encoded].map((form) => form.length));
  const replace = (match: string): string => replacement.get(match) ?? ENCODED_MASK;
  return {
    mask(text) {
      if (!text) return text;
      let out = text;
      for (const regex of all) out = out.replace(regex, replace);
      if (wrapped.length === 0 || (!out.includes("\n") && !out.includes("\\n"))) return out;
      let masked = "";
      let at = 0;
      for (const [start, end] of wrappedRuns(out)) {
        if (end - start < shortest) continue;
        masked += out.slice(at, start) + maskWrappedRun(out.slice(start, end), wrapped, shortest);
        at = end;
      }
      return at === 0 ? out : masked + out.slice(at);
    },
  };
}

/** True for the characters of base64 (both alphabets, with `=`), a superset of hex. */
function isEncodedChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) ||
    code === 43 || code === 47 || code === 61 || code === 95 || code === 45
  );
}

/**
 * The spans of `text` that are runs of encoded characters continuing across at least one line
 * break (`BREAK`) whose line piece before it has `MIN_WRAPPED_LINE` encoded characters or more.
 * Sorted, disjoint. Looks only at the characters around breaks and inside such runs.
 */
function wrappedRuns(text: string): Span[] {
  const runs: Span[] = [];
  let start = -1;
  let lastBreakEnd = -1;
  const finish = (): void => {
    if (start < 0) return;
    let end = lastBreakEnd;
    while (end < text.length && isEncodedChar(text.charCodeAt(end))) end += 1;
    runs.push([start, end]);
    start = -1;
  };
  for (const br of text.matchAll(BREAK_RE)) {
    const at = br.index;
    const after = at + br[0].length;
    if (!isEncodedChar(text.charCodeAt(after))) continue;
    let lineStart = at;
    while (lineStart > 0 && lineStart > lastBreakEnd && isEncodedChar(text.charCodeAt(lineStart - 1))) lineStart -= 1;
    if (at - lineStart < MIN_WRAPPED_LINE) continue;
    if (start < 0 || lineStart !== lastBreakEnd) {
      finish();
      start = lineStart;
    }
    lastBreakEnd = after;
  }
  finish();
  return runs;
}

/**
 * Global regexes matching any of `forms`, longest first, each under `MAX_ALTERNATION_SOURCE`
 * characters of source; applied in order, so a longer spelling is always masked before a shorter
 * one could match inside it.
 */
function alternations(forms: Iterable<string>): RegExp[] {
  const regexes: RegExp[] = [];
  let batch: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (batch.length > 0) regexes.push(new RegExp(batch.join("|"), "g"));
    batch = [];
    size = 0;
  };
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    const source = escapeRegExp(form);
    if (size + source.length > MAX_ALTERNATION_SOURCE) flush();
    batch.push(source);
    size += source.length + 1;
  }
  flush();
  return regexes;
}

/** One line piece of a wrapped run, and where it starts in the run's break-free view. */
interface Piece {
  text: string;
  viewStart: number;
  /** The break that follows it ("" for the last piece). */
  after: string;
}

/**
 * Masks the encoded spellings in a run that spans line breaks: they are searched in the run with
 * its breaks removed, and each covered part of each line piece becomes `***`; breaks are kept.
 */
function maskWrappedRun(run: string, forms: readonly RegExp[], shortest: number): string {
  const pieces: Piece[] = [];
  let view = "";
  let at = 0;
  for (const br of run.matchAll(BREAK_RE)) {
    const text = run.slice(at, br.index);
    pieces.push({ text, viewStart: view.length, after: br[0] });
    view += text;
    at = br.index + br[0].length;
  }
  pieces.push({ text: run.slice(at), viewStart: view.length, after: "" });
  view += run.slice(at);
  if (view.length < shortest) return run;

  const covered = mergedSpans(forms.flatMap((regex) => [...view.matchAll(regex)].map((m): Span => [m.index, m.index + m[0].length])));
  if (covered.length === 0) return run;

  let out = "";
  let next = 0;
  for (const piece of pieces) {
    const from = piece.viewStart;
    const to = from + piece.text.length;
    let cursor = from;
    while (next < covered.length && (covered[next] as Span)[1] <= from) next += 1;
    for (let index = next; index < covered.length; index += 1) {
      const [start, end] = covered[index] as Span;
      if (start >= to) break;
      if (start > cursor) out += view.slice(cursor, start);
      out += ENCODED_MASK;
      cursor = Math.min(end, to);
    }
    out += view.slice(cursor, to) + piece.after;
  }
  return out;
}

type Span = [start: number, end: number];

/** The spans sorted by start, overlapping or touching ones merged. */
function mergedSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}
