import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import type { FrameId } from "./frame-splitter.js";

/**
 * How long the end of input waits for the requests already read to be answered. Long enough for
 * a cancelled turn to stop its tools and for a `session/new` to finish; a request whose handler
 * never answers cannot keep the process alive past it.
 */
export const INPUT_END_DRAIN_MS = 3000;

/** The error a request to the client gets once the client's input has ended: no answer can come. */
export const CLIENT_GONE = { code: -32603, message: "the client closed its input before answering" } as const;

/**
 * The two directions of requests on one connection, by id (a reused id counts once per request):
 * the client's requests handed to the connection and not yet answered (`size`), and the agent's
 * requests to the client not yet answered. Waiters of `changed()` wake on every change.
 */
export class RequestsInFlight {
  private readonly open = new Map<FrameId, number>();
  private readonly asked = new Map<FrameId, number>();
  private waiters: Array<() => void> = [];
  private released = false;

  /** Incoming: a client request is noted; a response settles one of the agent's requests. */
  received(message: AnyMessage): void {
    if ("method" in message) {
      if ("id" in message) count(this.open, message.id, 1);
    } else if ("id" in message && count(this.asked, message.id, -1)) this.wake();
  }

  /** Outgoing: a response settles one client request; a request to the client is noted. */
  answered(message: AnyMessage): void {
    if ("method" in message) {
      if ("id" in message) count(this.asked, message.id, 1);
    } else if ("id" in message && !count(this.open, message.id, -1)) return;
    this.wake();
  }

  /** The connection has closed: the end-of-input wait stops, whatever is open. */
  release(): void {
    this.released = true;
    this.wake();
  }

  get size(): number {
    return this.open.size;
  }

  get done(): boolean {
    return this.released || this.open.size === 0;
  }

  /** The agent's unanswered requests to the client, each once, now forgotten. */
  takeAsked(): FrameId[] {
    const ids = [...this.asked].flatMap(([id, times]) => Array<FrameId>(times).fill(id));
    this.asked.clear();
    return ids;
  }

  /** Resolves on the next change (a request noted or answered, or `release()`). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Adds `delta` to `id`'s count (deleting it at 0); false when there was nothing to take from. */
function count(counts: Map<FrameId, number>, id: FrameId, delta: 1 | -1): boolean {
  const now = counts.get(id) ?? 0;
  if (delta < 0 && now === 0) return false;
  if (now + delta === 0) counts.delete(id);
  else counts.set(id, now + delta);
  return true;
}

/**
 * `messages` as the connection should see them, each noted in `inFlight`. At the end of input with
 * client requests still open, `atEnd` is called once (it must not throw: the client has gone, so
 * running turns are cancelled), and the stream closes only once every request read has been
 * answered, the connection has closed (`release()`), or `drainMs` has passed. Meanwhile each of
 * the agent's requests to the client, sent before or after the end, gets the CLIENT_GONE error
 * at once, so nothing waits on a client that cannot answer. So a request the client sent just
 * before closing its side (a last line with or without its newline) is answered, not dropped with
 * the connection. The wait holds a timer: the process never runs out of work in the middle of it.
 * Cancelling the result cancels `messages`.
 */
export function answeredBeforeEnd(
  messages: ReadableStream<AnyMessage>,
  inFlight: RequestsInFlight,
  atEnd: () => void,
  drainMs: number = INPUT_END_DRAIN_MS,
): ReadableStream<AnyMessage> {
  const reader = messages.getReader();
  let deadline: number | undefined;
  return new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        if (deadline === undefined) {
          const next = await reader.read();
          if (!next.done) {
            inFlight.received(next.value);
            controller.enqueue(next.value);
            return;
          }
          deadline = performance.now() + drainMs;
          if (!inFlight.done) atEnd();
        }
        for (;;) {
          const asked = inFlight.takeAsked();
          if (asked.length > 0 && !inFlight.done) {
            for (const id of asked) controller.enqueue({ jsonrpc: "2.0", id, error: { ...CLIENT_GONE } });
            return;
          }
          const left = deadline - performance.now();
          if (inFlight.done || left <= 0) {
            controller.close();
            return;
          }
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([inFlight.changed(), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
          clearTimeout(timer);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
