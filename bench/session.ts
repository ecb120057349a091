/**
 * DESIGN §7 `session/new` row: milliseconds from the client sending `session/new` to receiving its
 * response, for `count` sessions opened one after another in one running agent, after one untimed
 * warm-up session (which pays any first-use loading).
 */
import { withBenchAgent } from "./harness.js";

export interface SessionNewSamples {
  /** The untimed-for-the-budget first session, reported for information. */
  firstMs: number;
  samples: number[];
}

export async function measureSessionNew(count: number): Promise<SessionNewSamples> {
  return withBenchAgent(async (bench) => {
    let started = performance.now();
    await bench.newSession();
    const firstMs = performance.now() - started;
    const samples: number[] = [];
    for (let i = 0; i < count; i += 1) {
      started = performance.now();
      await bench.newSession();
      samples.push(performance.now() - started);
    }
    return { firstMs, samples };
  });
}
