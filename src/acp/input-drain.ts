import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import type { FrameId } from "./frame-splitter.js";

/**
 * How long the end of input waits for the requests already read to be answered. Long enough for
 * a cancelled turn to stop its tools and for a `session/new` to finish; a request that never
 * answers (a handler waiting on the client that has gone) cannot keep the process alive past it.
 */
export const INPUT_END_DRAIN_MS = 3000;

/**
 * The requests the connection has been handed and not yet answered, by id (a client may reuse an
 * id while the first is in flight: each one counts). `idle()` resolves once none is left, or once
 * `release()` was called.
 */
export class RequestsInFlight {
  private readonly open = new Map<FrameId, number>();
  private waiters: Array<() => void> = [];
  private released = false;

  /** Notes `message` if it is a request (it has a method and an id). */
  received(message: AnyMessage): void {
    if (!("method" in message) || !("id" in message)) return;
    this.open.set(message.id, (this.open.get(message.id) ?? 0) + 1);
  }

  /** Settles one request of `message`'s id if it is a response (an id and no method). */
  answered(message: AnyMessage): void {
    if ("method" in message || !("id" in message)) return;
    const count = this.open.get(message.id);
    if (count === undefined) return;
    if (count > 1) this.open.set(message.id, count - 1);
    else this.open.delete(message.id);
    if (this.open.size === 0) this.wake();
  }

  /** Stops waiting: `idle()` resolves from now on, whatever is open (the connection has closed). */
  release(): void {
    this.released = true;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  get size(): number {
    return this.open.size;
  }

  idle(): Promise<void> {
    if (this.open.size === 0 || this.released) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/**
 * `messages` as the connection should see them: each request noted in `inFlight`; at the end of
 * input, `atEnd` is called (it must not throw: the client has gone, so running turns are
 * cancelled) and the stream closes only once every request read has been answered, or
 * `drainMs` has passed. So a request the client sent just before closing its side (a last line
 * with or without its newline) is answered, not dropped with the connection. Cancelling the
 * result cancels `messages`.
 */
export function answeredBeforeEnd(
  messages: ReadableStream<AnyMessage>,
  inFlight: RequestsInFlight,
  atEnd: () => void,
  drainMs: number = INPUT_END_DRAIN_MS,
): ReadableStream<AnyMessage> {
  const reader = messages.getReader();
  return new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (!next.done) {
          inFlight.received(next.value);
          controller.enqueue(next.value);
          return;
        }
        if (inFlight.size > 0) {
          atEnd();
          let timer: NodeJS.Timeout | undefined;
          // Unref'd: the wait never keeps the process alive by itself.
          await Promise.race([inFlight.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs).unref()))]);
          clearTimeout(timer);
        }
        controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
