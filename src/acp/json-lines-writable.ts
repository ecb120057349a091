import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { log } from "../shared/logger.js";
import { nextTurn } from "../shared/next-turn.js";

/**
 * Pending text at which the writer hands a turn's output to the stream at once rather than at the
 * end of the turn (about a pipe's kernel buffer): a turn that writes megabytes (a `session/load`
 * replay) reaches the client while it is still being serialized, and the client reads and parses
 * it in parallel.
 */
export const FLUSH_CHARS = 64 * 1024;

/** Text waiting in the stream (not yet taken by the OS) past which writes wait for its `drain`. */
export const MAX_BACKLOG_CHARS = 16 * FLUSH_CHARS;

/**
 * The outgoing half of the stdio transport: a WritableStream of JSON-RPC messages that writes
 * each as one line of JSON, gathering the messages written in one turn of the event loop into a
 * single `write` (one syscall instead of one per frame when updates stream fast, and no per-frame
 * byte-stream round trip), or into one `write` per FLUSH_CHARS when a turn writes more. Order is
 * preserved. `write` resolves at once, except:
 * - after a write of FLUSH_CHARS the stream could not pass on whole (the client has not read the
 *   last one yet), on the next turn of the event loop, so the stream gets to write to the OS
 *   (which it only does between turns) while the writer's caller goes on;
 * - while more than MAX_BACKLOG_CHARS wait in a stream that asked for backpressure, at its `drain`.
 * Close flushes what is pending.
 */
export function jsonLinesWritable(output: NodeJS.WritableStream & { readonly writableLength?: number }): JsonLinesOutput {
  let pending = "";
  let scheduled = false;
  let drained: Promise<void> | undefined;

  /** Writes what is pending; true when the stream holds some of it back for now. */
  const writePending = (): boolean => {
    if (!pending) return false;
    const text = pending;
    pending = "";
    const ok = output.write(text);
    const backlog = output.writableLength;
    // `ok` false means the stream will emit `drain` once its buffer is empty.
    if (!ok && !drained && (backlog === undefined || backlog > MAX_BACKLOG_CHARS)) {
      drained = new Promise((resolve) =>
        output.once("drain", () => {
          drained = undefined;
          resolve();
        }),
      );
    }
    return backlog === undefined ? !ok : backlog > 0;
  };

  const flush = (): void => {
    scheduled = false;
    writePending();
  };

  const enqueue = (text: string): Promise<void> | undefined => {
    pending += text;
    if (pending.length >= FLUSH_CHARS) {
      if (writePending() && !drained) return nextTurn();
    } else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return drained;
  };
  const close = (): Promise<void> | undefined => {
    flush();
    return drained;
  };
  return {
    messages: messageSink((message) => {
      const line = serializeFrame(message);
      return (line ? enqueue(`${line}\n`) : drained) ?? Promise.resolve();
    }, close),
    flush: () => close() ?? Promise.resolve(),
  };
}

/** Largest error response sent with its `data`; a bigger one loses `data` and keeps code and message. */
export const MAX_ERROR_FRAME_CHARS = 64 * 1024;

/**
 * One message as a line of JSON. Never throws: a message that cannot be serialized (too deep,
 * a cycle, a BigInt) becomes, for a response, a -32603 error response to the same id and, for
 * anything else, nothing at all (the empty string, which the writer skips). An error response longer than MAX_ERROR_FRAME_CHARS is sent without `data`.
 */
export function serializeFrame(message: AnyMessage): string {
  let text: string;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    log.error(`an outgoing frame could not be serialized: ${error instanceof Error ? error.message : String(error)}`);
    if (!("id" in message) || "method" in message) return "";
    return JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: "Internal error: the response could not be serialized" } });
  }
  if (text.length > MAX_ERROR_FRAME_CHARS && "error" in message && message.error) {
    const { code, message: description } = message.error;
    return JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code, message: description.slice(0, 1000) } });
  }
  return text;
}

/**
 * A writable the SDK's connection can send through. The connection takes a writer, writes one
 * message and releases the lock for every frame; a WHATWG WritableStream rejects two promises
 * with fresh errors on each release, which dominated the cost of streaming thousands of updates.
 * This sink implements exactly that writer protocol (`getWriter` → `write` → `releaseLock`,
 * plus `ready`, `closed`, `close`, `abort`) without the per-frame allocations.
 */
function messageSink(write: (message: AnyMessage) => Promise<void>, flush: () => Promise<void> | undefined): WritableStream<AnyMessage> {
  const closed = new Promise<undefined>(() => undefined);
  const writer = {
    get desiredSize() {
      return 1;
    },
    ready: Promise.resolve(undefined),
    closed,
    write,
    releaseLock: () => undefined,
    close: () => flush() ?? Promise.resolve(),
    abort: () => Promise.resolve(),
  };
  const sink = {
    locked: false,
    getWriter: () => writer,
    close: () => flush() ?? Promise.resolve(),
    abort: () => Promise.resolve(),
  };
  return sink as unknown as WritableStream<AnyMessage>;
}

/**
 * `messages` without the first response (result or error) to request `id`, for a request
 * answered before the connection started (early-initialize.ts): `skipped` is called when it came.
 * Everything else passes on in order; closing it closes `messages`.
 */
export function withoutFirstResponse(messages: WritableStream<AnyMessage>, id: string | number, skipped: () => void): WritableStream<AnyMessage> {
  const writer = messages.getWriter();
  let waiting = true;
  return messageSink(
    (message) => {
      if (waiting && "id" in message && message.id === id && !("method" in message)) {
        waiting = false;
        skipped();
        return Promise.resolve();
      }
      return writer.write(message);
    },
    () => writer.close(),
  );
}

/** `messages` with `seen` told of every message before it is written (it must not throw); closing it closes `messages`. */
export function watchingOutput(messages: WritableStream<AnyMessage>, seen: (message: AnyMessage) => void): WritableStream<AnyMessage> {
  const writer = messages.getWriter();
  return messageSink(
    (message) => {
      seen(message);
      return writer.write(message);
    },
    () => writer.close(),
  );
}

/** The ordered output: JSON-RPC messages, each written as one line. */
export interface JsonLinesOutput {
  messages: WritableStream<AnyMessage>;
  /** Writes what is pending now; resolves when the stream has taken it (after `drain` if it pushed back). */
  flush(): Promise<void>;
}
