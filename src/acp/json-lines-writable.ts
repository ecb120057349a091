import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";

/**
 * The outgoing half of the stdio transport: a WritableStream of JSON-RPC messages that writes
 * each as one line of JSON, gathering every message written in one turn of the event loop into a
 * single `write` (one syscall instead of one per frame when updates stream fast, and no per-frame
 * byte-stream round trip). Order is preserved. `write` resolves at once unless the Node stream
 * asked for backpressure, in which case it waits for `drain`. Close flushes what is pending.
 */
export function jsonLinesWritable(output: NodeJS.WritableStream): JsonLinesOutput {
  let pending = "";
  let scheduled = false;
  let drained: Promise<void> | undefined;

  const flush = (): void => {
    scheduled = false;
    if (!pending) return;
    const text = pending;
    pending = "";
    const ok = output.write(text);
    if (!ok && !drained) {
      drained = new Promise((resolve) =>
        output.once("drain", () => {
          drained = undefined;
          resolve();
        }),
      );
    }
  };

  const enqueue = (text: string): Promise<void> | undefined => {
    pending += text;
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return drained;
  };
  const close = (): Promise<void> | undefined => {
    flush();
    return drained;
  };
  const decoder = new TextDecoder();
  return {
    messages: messageSink((message) => enqueue(`${JSON.stringify(message)}\n`) ?? Promise.resolve()),
    bytes: new WritableStream<Uint8Array>({ write: (chunk) => enqueue(decoder.decode(chunk, { stream: true })), close }),
  };
}

/**
 * A writable the SDK's connection can send through. The connection takes a writer, writes one
 * message and releases the lock for every frame; a WHATWG WritableStream rejects two promises
 * with fresh errors on each release, which dominated the cost of streaming thousands of updates.
 * This sink implements exactly that writer protocol (`getWriter` → `write` → `releaseLock`,
 * plus `ready`, `closed`, `close`, `abort`) without the per-frame allocations.
 */
function messageSink(write: (message: AnyMessage) => Promise<void>): WritableStream<AnyMessage> {
  const closed = new Promise<undefined>(() => undefined);
  const writer = {
    get desiredSize() {
      return 1;
    },
    ready: Promise.resolve(undefined),
    closed,
    write,
    releaseLock: () => undefined,
    close: () => Promise.resolve(),
    abort: () => Promise.resolve(),
  };
  const sink = {
    locked: false,
    getWriter: () => writer,
    close: () => Promise.resolve(),
    abort: () => Promise.resolve(),
  };
  return sink as unknown as WritableStream<AnyMessage>;
}

/** Two ways into one ordered output: JSON-RPC messages, and ready-made NDJSON bytes. */
export interface JsonLinesOutput {
  messages: WritableStream<AnyMessage>;
  /** For the SDK's NDJSON reader, which answers unparseable input lines itself. */
  bytes: WritableStream<Uint8Array>;
}
