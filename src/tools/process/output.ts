import { stripVTControlCharacters } from "node:util";

/**
 * Output handling shared by `terminal` and `process`: ANSI stripping that works on a stream
 * split at arbitrary points, the head + tail truncation Hermes applies to command output, and
 * the bounded rolling buffer background processes write into.
 */

/** Share of the cap kept from the start of the output; the rest comes from the end. */
export const HEAD_SHARE = 0.4;

/** An escape sequence longer than this is not waited for across chunks. */
const MAX_PENDING_ESCAPE = 64;
/** True when `tail` (starting with ESC) holds a whole escape sequence, so nothing needs to wait. */
function isCompleteEscape(tail: string): boolean {
  const introducer = tail[1];
  if (introducer === undefined) return false;
  if (introducer === "[") return /^\x1b\[[0-?]*[ -/]*[@-~]/.test(tail);
  if (introducer === "]") return /^\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/.test(tail);
  if ("PX^_".includes(introducer)) return /^\x1b[PX^_][^\x1b]*\x1b\\/.test(tail);
  return /^\x1b[ -/]*[0-~]/.test(tail);
}

/**
 * Removes ANSI escape sequences from text that arrives in chunks. A sequence cut by a chunk
 * boundary is held back until the next chunk completes it (or `flush` gives up on it).
 * `\r\n` becomes `\n`; other characters pass through.
 */
export class AnsiStripper {
  private pending = "";

  push(chunk: string): string {
    let text = this.pending + chunk;
    this.pending = "";
    const lastEscape = text.lastIndexOf("\x1b");
    if (lastEscape >= 0 && text.length - lastEscape < MAX_PENDING_ESCAPE) {
      const tail = text.slice(lastEscape);
      if (!isCompleteEscape(tail)) {
        this.pending = tail;
        text = text.slice(0, lastEscape);
      }
    }
    if (text.endsWith("\r")) {
      this.pending = `\r${this.pending}`;
      text = text.slice(0, -1);
    }
    return clean(text);
  }

  /** Whatever is still held back, cleaned as well as it can be. */
  flush(): string {
    const rest = this.pending;
    this.pending = "";
    return clean(rest);
  }
}

function clean(text: string): string {
  return stripVTControlCharacters(text).replace(/\x1b/g, "").replace(/\r\n/g, "\n");
}

/** Strips ANSI escapes from a complete text. */
export function stripAnsi(text: string): string {
  const stripper = new AnsiStripper();
  return stripper.push(text) + stripper.flush();
}

/** The marker line that replaces the middle of output longer than the cap. */
export function truncationMarker(omitted: number, total: number): string {
  return `\n\n... [OUTPUT TRUNCATED - ${omitted} chars omitted out of ${total} total] ...\n\n`;
}

/** Keeps the first 40 % and the last 60 % of `cap` chars with a marker between; shorter text is returned as is. */
export function truncateMiddle(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const head = Math.floor(cap * HEAD_SHARE);
  const tail = cap - head;
  return text.slice(0, head) + truncationMarker(text.length - head - tail, text.length) + text.slice(text.length - tail);
}

/**
 * Collects a stream of (already cleaned) text in bounded memory: the first 40 % of `cap` and a
 * rolling last 60 %. `text()` equals `truncateMiddle(everything, cap)` without holding everything.
 */
export class HeadTailCollector {
  private head = "";
  private tailChunks: string[] = [];
  private tailLength = 0;
  private total = 0;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(private readonly cap: number) {
    this.headCap = Math.floor(cap * HEAD_SHARE);
    this.tailCap = cap - this.headCap;
  }

  push(text: string): void {
    if (!text) return;
    this.total += text.length;
    if (this.head.length < this.headCap) {
      const take = this.headCap - this.head.length;
      this.head += text.slice(0, take);
      text = text.slice(take);
      if (!text) return;
    }
    this.tailChunks.push(text);
    this.tailLength += text.length;
    // Keep at most ~2× the tail cap in chunks; compact when over.
    if (this.tailLength > this.tailCap * 2) this.compact();
  }

  private compact(): void {
    const joined = this.tailChunks.join("");
    const kept = joined.slice(Math.max(0, joined.length - this.tailCap));
    this.tailChunks = [kept];
    this.tailLength = kept.length;
  }

  /** Total chars pushed. */
  get length(): number {
    return this.total;
  }

  text(): string {
    const tail = this.tailChunks.join("");
    if (this.total <= this.cap) return this.head + tail;
    const keptTail = tail.slice(Math.max(0, tail.length - this.tailCap));
    return this.head + truncationMarker(this.total - this.head.length - keptTail.length, this.total) + keptTail;
  }
}

/**
 * The rolling output of a background process: keeps the last `cap` chars, and addresses text
 * by absolute offset (chars written since the start), so readers can ask for "everything since
 * offset N" and learn how much was lost to the cap.
 */
export class TailBuffer {
  private chunks: string[] = [];
  private retained = 0;
  /** Absolute offset of the first retained char. */
  private startOffset = 0;

  constructor(readonly cap: number) {}

  append(text: string): void {
    if (!text) return;
    this.chunks.push(text);
    this.retained += text.length;
    if (this.retained > this.cap * 1.5) this.trim();
  }

  private trim(): void {
    const joined = this.chunks.join("");
    const drop = Math.max(0, joined.length - this.cap);
    this.chunks = [joined.slice(drop)];
    this.retained = joined.length - drop;
    this.startOffset += drop;
  }

  /** Absolute offset just past the last char written. */
  get end(): number {
    return this.startOffset + this.retained;
  }

  /** Absolute offset of the oldest char still held. */
  get start(): number {
    this.trim();
    return this.startOffset;
  }

  /** Text from absolute `offset` to the end, and how many chars before it were dropped by the cap. */
  readFrom(offset: number): { text: string; lost: number } {
    this.trim();
    const from = Math.max(offset, this.startOffset);
    const text = (this.chunks[0] ?? "").slice(from - this.startOffset);
    return { text, lost: Math.max(0, this.startOffset - offset) };
  }

  /** Everything still held. */
  text(): string {
    return this.readFrom(0).text;
  }
}
