import { describe, expect, it } from "vitest";
import { GuardedStream } from "./guarded-stream.js";

async function* items(values: number[], thenThrow?: Error): AsyncGenerator<number> {
  for (const value of values) yield value;
  if (thenThrow) throw thenThrow;
}

async function collect(guard: GuardedStream<number>, open: (signal: AbortSignal) => Promise<AsyncIterable<number>>): Promise<number[]> {
  const seen: number[] = [];
  for await (const value of guard.chunks(open)) seen.push(value);
  return seen;
}

const classify = (error: unknown) => ({ type: "error" as const, kind: "server" as const, message: String(error) });

describe("GuardedStream", () => {
  it("passes chunks through and reports a completed stream", async () => {
    const guard = new GuardedStream<number>(new AbortController().signal, 60_000);
    expect(await collect(guard, async () => items([1, 2, 3]))).toEqual([1, 2, 3]);
    expect(guard.outcome).toEqual({ kind: "completed" });
    expect(guard.failure("p", true, classify)).toBeUndefined();
    expect(guard.failure("p", false, classify)).toMatchObject({ kind: "network" });
  });

  it("turns a thrown error into a failed outcome, never a throw", async () => {
    const guard = new GuardedStream<number>(new AbortController().signal, 60_000);
    expect(await collect(guard, async () => items([1], new Error("boom")))).toEqual([1]);
    expect(guard.failure("p", false, classify)).toMatchObject({ kind: "server", message: "Error: boom" });
  });

  it("aborts a silent stream as idle, and follows the caller's signal", async () => {
    const silent = (signal: AbortSignal) =>
      Promise.resolve({
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<number>>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
        }),
      });
    const idle = new GuardedStream<number>(new AbortController().signal, 1);
    await collect(idle, silent);
    expect(idle.failure("p", false, classify)).toMatchObject({ kind: "timeout" });

    const controller = new AbortController();
    const cancelled = new GuardedStream<number>(controller.signal, 60_000);
    const done = collect(cancelled, silent);
    controller.abort();
    await done;
    expect(cancelled.failure("p", false, classify)).toMatchObject({ kind: "aborted" });
  });

  it("gives up on an open that never resolves (even one deaf to its signal) after connectMs, or at the caller's abort", async () => {
    const never = () => new Promise<AsyncIterable<number>>(() => undefined);
    const slow = new GuardedStream<number>(new AbortController().signal, { connectMs: 1, idleMs: 60_000 });
    expect(await collect(slow, never)).toEqual([]);
    expect(slow.outcome).toEqual({ kind: "connect_timeout" });
    expect(slow.failure("p", false, classify)).toMatchObject({ kind: "timeout", message: expect.stringContaining("model.connect_timeout") });

    const controller = new AbortController();
    const cancelled = new GuardedStream<number>(controller.signal, { connectMs: 60_000 });
    const done = collect(cancelled, never);
    controller.abort();
    await done;
    expect(cancelled.failure("p", false, classify)).toMatchObject({ kind: "aborted" });
  });

  it("applies the idle limit, not the connect limit, once the stream is open", async () => {
    const silentAfterOpen = (signal: AbortSignal) =>
      Promise.resolve({
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<number>>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
        }),
      });
    const guard = new GuardedStream<number>(new AbortController().signal, { connectMs: 60_000, idleMs: 1 });
    await collect(guard, silentAfterOpen);
    expect(guard.outcome).toEqual({ kind: "idle" });
  });
});
