import { describe, expect, it } from "vitest";
import { NextAttempt } from "./next-attempt.js";

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("NextAttempt", () => {
  it("runs `now` once in a microtask, before the next event-loop turn, however often it is asked", async () => {
    let runs = 0;
    const next = new NextAttempt(() => runs++);
    next.after(0);
    next.now();
    next.now();
    expect(next.pending).toBe(true);
    await Promise.resolve();
    expect(runs).toBe(1);
    expect(next.pending).toBe(false);
    await nextTurn();
    expect(runs).toBe(1);
  });

  it("replaces a pending attempt with a later one, and runs nothing once cancelled", async () => {
    let runs = 0;
    const next = new NextAttempt(() => runs++);
    next.now();
    next.after(0);
    await Promise.resolve();
    expect(runs).toBe(0);
    await nextTurn();
    expect(runs).toBe(1);
    next.after(5);
    next.cancel();
    expect(next.pending).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(1);
  });
});
