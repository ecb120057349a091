/**
 * Byte-level framing of the stdio transport, done before any JSON parsing so that no input can
 * make the server buffer without bound or recurse without bound: a line splitter with a size
 * limit, a nesting-depth scan, and a cheap look-up of a frame's top-level `id`.
 */

/** Largest accepted frame, in bytes, line ending excluded (prompt images arrive inline as base64). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** Deepest accepted nesting of arrays and objects; real ACP frames stay far below it. */
export const MAX_FRAME_DEPTH = 128;
/** How much of an oversize frame is kept, to look for its `id` in. */
const OVERSIZE_HEAD_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** One complete input line: a frame to parse, or the head of a frame that exceeded the limit. */
export type SplitLine = { kind: "frame"; bytes: Uint8Array } | { kind: "oversize"; head: Uint8Array };

/**
 * Splits a byte stream into LF- (or CRLF-) terminated lines, holding at most `maxBytes` of one
 * line. A line that grows past the limit is reported once, as `oversize` with its first bytes,
 * at the moment it crosses the limit; the rest of it, up to and including its line ending, is
 * discarded, and splitting resumes with the next line. Chunks may be reused after `push` returns.
 */
export class FrameSplitter {
  private parts: Uint8Array[] = [];
  private length = 0;
  private discarding = false;

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  /** The lines completed (or overflowed) by `chunk`, in order. */
  push(chunk: Uint8Array): SplitLine[] {
    const lines: SplitLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.discarding) {
        if (newline !== -1) this.discarding = false;
      } else if (this.length + (end - start) > this.maxBytes + 1) {
        // +1 leaves room for the CR of a CRLF, which is not part of the frame.
        lines.push({ kind: "oversize", head: this.head(chunk.subarray(start, end)) });
        this.reset();
        this.discarding = newline === -1;
      } else if (newline === -1) {
        this.parts.push(chunk.slice(start, end));
        this.length += end - start;
      } else {
        const line = this.take(chunk.subarray(start, end));
        if (line.length > this.maxBytes) lines.push({ kind: "oversize", head: line.subarray(0, OVERSIZE_HEAD_BYTES) });
        else if (line.length > 0) lines.push({ kind: "frame", bytes: line });
      }
      start = newline === -1 ? chunk.length : newline + 1;
    }
    return lines;
  }

  /** At end of input: the unterminated last line, if any (a line being discarded yields nothing). */
  end(): SplitLine[] {
    const line = this.discarding ? new Uint8Array(0) : this.take(new Uint8Array(0));
    this.discarding = false;
    if (line.length === 0) return [];
    return line.length > this.maxBytes ? [{ kind: "oversize", head: line.subarray(0, OVERSIZE_HEAD_BYTES) }] : [{ kind: "frame", bytes: line }];
  }

  private take(tail: Uint8Array): Uint8Array {
    let line: Uint8Array;
    if (this.parts.length === 0) line = tail;
    else {
      line = new Uint8Array(this.length + tail.length);
      let offset = 0;
      for (const part of this.parts) {
        line.set(part, offset);
        offset += part.length;
      }
      line.set(tail, offset);
    }
    this.reset();
    return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, -1) : line;
  }

  private head(tail: Uint8Array): Uint8Array {
    const head = new Uint8Array(Math.min(OVERSIZE_HEAD_BYTES, this.length + tail.length));
    let offset = 0;
    for (const part of [...this.parts, tail]) {
      if (offset >= head.length) break;
      const piece = part.subarray(0, head.length - offset);
      head.set(piece, offset);
      offset += piece.length;
    }
    return head;
  }

  private reset(): void {
    this.parts = [];
    this.length = 0;
  }
}

/**
 * True when arrays and objects in `bytes` (JSON text, possibly invalid) nest deeper than
 * `maxDepth`. Brackets inside strings do not count. Linear, no allocation, never throws.
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth = MAX_FRAME_DEPTH): boolean {
  if (bytes.length <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/** A JSON-RPC id as an error response may echo it. */
export type FrameId = string | number | null;

/**
 * The `id` member of the top-level object in `bytes` when it is a number or a short string,
 * found by scanning (the text may be truncated, invalid or too deep to parse); null otherwise.
 */
export function topLevelId(bytes: Uint8Array): FrameId {
  const text = new TextDecoder().decode(bytes.subarray(0, OVERSIZE_HEAD_BYTES));
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      const close = stringEnd(text, i);
      if (close === -1) return null;
      if (depth === 1 && text.slice(i, close + 1) === '"id"') {
        const value = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.){0,256}")\s*[,}]/.exec(text.slice(close + 1, close + 300));
        if (value?.[1] !== undefined) return parseId(value[1]);
      }
      i = close + 1;
      continue;
    }
    if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") depth--;
    i++;
  }
  return null;
}

function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function parseId(literal: string): FrameId {
  try {
    const value: unknown = JSON.parse(literal);
    if (typeof value === "string") return value;
    if (typeof value === "number" && Number.isFinite(value)) return value;
  } catch {
    // not a valid literal after all
  }
  return null;
}
