import { isUtf8 } from "node:buffer";
import { Readable } from "node:stream";
import type { InitializeRequest, InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { MAX_FRAME_DEPTH, nestsDeeperThan } from "./frame-splitter.js";
import { PARAM_SCHEMAS } from "./param-schemas.js";

/**
 * Answering the first `initialize` before the ACP SDK and the server's modules are evaluated
 * (~half of what start-up loads): the editor gets its answer while the rest loads. Only a first
 * line that the normal path would answer the same way is answered here; anything else (another
 * method first, a frame the reader or the params checks would reject, a line too long to be a
 * real `initialize`) is left to the normal path untouched. Either way the server then reads the
 * input from its first byte: the answered request too, so the SDK sees its `initialize`, and its
 * own answer to it is not sent again (see `EarlyStart.answered`).
 */

/** Longest first line answered early; a longer one (no real `initialize` is) goes the normal way. */
export const EARLY_LINE_BYTES = 64 * 1024;

/** What the server reads and skips once the early answer is settled. */
export interface EarlyStart {
  /** The input as it came, from its first byte (the bytes read here put back in front). */
  input: NodeJS.ReadableStream;
  /** The id of the `initialize` answered early: the connection's own answer to it must not be written. */
  answered?: string | number;
  /** Set when writing the early answer failed (a closed stdout): the server treats it as its own output error. */
  outputError?: Error;
  /** The request line answered here (without its line end) and the answer line written (with its LF). */
  exchange?: { line: Uint8Array; frame: string };
}

/** An `initialize` request the normal path would pass to the SDK unchanged. */
interface EarlyRequest {
  id: string | number;
  params: InitializeRequest;
}

/**
 * Reads `input` up to its first line end. When that line is an `initialize` request the normal
 * path would accept (`earlyInitialize`), writes `{ jsonrpc, id, result: respond(params) }` to
 * `output` as one line, then resolves. Resolves without answering at the end of input, on a read
 * error, when `signal` aborts, or when no line end comes within EARLY_LINE_BYTES.
 *
 * Contract: never rejects; `respond` must not throw (a throw is caught and the request is left to
 * the normal path, which answers it). Nothing read is lost: the resolved `input` yields every
 * byte of the original, in order. No log line is written (the caller's logger may not be ready).
 */
export function answerInitializeEarly(
  input: Readable,
  output: NodeJS.WritableStream,
  respond: (params: InitializeRequest) => InitializeResponse,
  signal?: AbortSignal,
): Promise<EarlyStart> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const start: EarlyStart = { input };

    const settle = (how: "line" | "end" | "error" | "abort"): void => {
      if (settled) return;
      settled = true;
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onError);
      signal?.removeEventListener("abort", onAbort);
      const consumed = Buffer.concat(chunks, length);
      if (how === "end") {
        // An ended stream takes nothing back: the bytes read are served from a copy that ends as it did.
        start.input = Readable.from(length > 0 ? [consumed] : [], { objectMode: false });
      } else if (how !== "error") {
        input.pause();
        if (length > 0) input.unshift(consumed);
      }
      resolve(start);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      const newline = bytes.indexOf(0x0a);
      const lineEnd = newline === -1 ? -1 : length + newline;
      chunks.push(bytes);
      length += bytes.length;
      if (lineEnd === -1) {
        if (length > EARLY_LINE_BYTES) settle("line");
        return;
      }
      const line = withoutCr(Buffer.concat(chunks, length).subarray(0, lineEnd));
      const request = lineEnd <= EARLY_LINE_BYTES ? earlyInitialize(line) : undefined;
      if (request) answer(request, line);
      settle("line");
    };
    const answer = (request: EarlyRequest, requestLine: Uint8Array): void => {
      let line: string;
      try {
        line = `${JSON.stringify({ jsonrpc: "2.0", id: request.id, result: respond(request.params) })}\n`;
      } catch {
        return;
      }
      output.once("error", (error: Error) => (start.outputError ??= error));
      output.write(line);
      start.answered = request.id;
      start.exchange = { line: requestLine, frame: line };
    };
    const onEnd = (): void => settle("end");
    const onError = (): void => settle("error");
    const onAbort = (): void => settle("abort");
    if (signal?.aborted) {
      settle("abort");
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    input.on("error", onError);
    input.on("end", onEnd);
    input.on("data", onData);
    // A stream handed on paused (the launcher's, after its own look at the first line) flows again.
    input.resume();
  });
}

/**
 * `line` (without its LF) as an `initialize` request that the normal path would hand the SDK
 * unchanged and answer, or undefined. It must be valid UTF-8, nest no deeper than the frame
 * reader allows, parse as one JSON object with exactly the JSON-RPC keys (`jsonrpc: "2.0"`, an
 * integer or string `id`, `method: "initialize"`, object `params`), and pass the same params
 * check as every `initialize` (param-schemas.ts).
 */
export function earlyInitialize(line: Uint8Array): EarlyRequest | undefined {
  const bytes = withoutCr(line);
  if (!isUtf8(bytes) || nestsDeeperThan(bytes, MAX_FRAME_DEPTH)) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isPlainObject(message)) return undefined;
  const { jsonrpc, id, method, params, ...rest } = message;
  if (Object.keys(rest).length > 0 || jsonrpc !== "2.0" || method !== "initialize") return undefined;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return undefined;
  if (!isPlainObject(params) || !PARAM_SCHEMAS.initialize?.safeParse(params).success) return undefined;
  return { id, params: params as unknown as InitializeRequest };
}

/** `line` without the CR of a CRLF line end. */
function withoutCr(line: Uint8Array): Uint8Array {
  return line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
