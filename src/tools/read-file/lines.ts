import { truncateLine } from "../../shared/truncate.js";
import { throwIfAborted } from "../../shared/abort.js";

/** The lines of one read: the requested window, already cut to `maxLineChars`, and the file's line count. */
export interface LineWindow {
  /** Lines `offset … offset + lines.length - 1`, without line terminators. */
  lines: string[];
  /** Lines in the whole text: `"a\nb"` and `"a\nb\n"` both have 2, `""` has 0, `"\n"` has 1. */
  totalLines: number;
}

/**
 * Splits text arriving in chunks into lines on `\n`, dropping a `\r` before it (CRLF files show no
 * `\r`) and a leading BOM, and keeps only lines `offset … offset + limit - 1` (1-based). Lines
 * outside the window are counted, not stored, and a partial line is never kept beyond
 * `maxLineChars + 2` chars, so memory stays bounded for streamed files with huge lines.
 * Checks `signal` between chunks and rejects with an AbortError once it fires.
 */
export async function collectLines(
  chunks: AsyncIterable<string> | Iterable<string>,
  offset: number,
  limit: number,
  maxLineChars: number,
  signal?: AbortSignal,
): Promise<LineWindow> {
  const last = offset + limit - 1;
  const lines: string[] = [];
  let totalLines = 0;
  let partial = "";
  let first = true;
  const finishLine = (raw: string): void => {
    totalLines++;
    if (totalLines < offset || totalLines > last) return;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    lines.push(truncateLine(line, maxLineChars));
  };
  const keepPartial = (text: string): string =>
    text.length > maxLineChars + 2 ? text.slice(0, maxLineChars + 2) : text;

  for await (const rawChunk of chunks) {
    throwIfAborted(signal);
    let chunk = rawChunk;
    if (first && chunk !== "") {
      if (chunk.startsWith("\uFEFF")) chunk = chunk.slice(1);
      first = false;
    }
    let start = 0;
    let newline = chunk.indexOf("\n", start);
    while (newline !== -1) {
      const inWindow = totalLines + 1 >= offset && totalLines + 1 <= last;
      finishLine(inWindow ? keepPartial(partial + chunk.slice(start, newline)) : "");
      partial = "";
      start = newline + 1;
      newline = chunk.indexOf("\n", start);
    }
    partial = keepPartial(partial + chunk.slice(start));
  }
  if (partial !== "") finishLine(partial);
  return { lines, totalLines };
}
