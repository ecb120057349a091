/**
 * DESIGN §7 prompt rows.
 *
 * Adapter overhead: for each prompt, the time from the client sending `session/prompt` to receiving
 * its response, minus the model's time as the fake server saw it (request arrival to its whole
 * answer handed to the socket). What remains is the agent's own work plus stdio and loopback
 * transport: parsing, building the model request, relaying the streamed answer as updates,
 * and answering. Each prompt gets a short streamed text answer and makes exactly one model call.
 *
 * Peak RSS: `VmHWM` of the agent process (from /proc) after initialize, one session and one prompt.
 */
import { readFileSync } from "node:fs";
import type { BenchAgent } from "./harness.js";
import { withBenchAgent } from "./harness.js";

export interface PromptTiming {
  roundTripMs: number;
  modelMs: number;
  overheadMs: number;
}

export interface PromptSamples {
  /** The first prompt of the session (first model call: lazy loading, connection set-up), not in `samples`. */
  first: PromptTiming;
  samples: PromptTiming[];
}

export interface PeakRss {
  /** VmHWM in kB, as /proc reports it (KiB). */
  peakKb: number;
  /** VmRSS in kB at the same moment. */
  currentKb: number;
}

const ANSWER = "Sure, that works fine.";

/** One prompt with a short scripted answer; throws unless it made exactly one model call. */
async function timedPrompt(bench: BenchAgent, sessionId: string, index: number): Promise<PromptTiming> {
  bench.llm.push({ text: ANSWER });
  const before = bench.llm.requests.length;
  const started = performance.now();
  await bench.prompt(sessionId, `Answer briefly (${index}).`);
  const roundTripMs = performance.now() - started;
  const calls = bench.llm.requests.slice(before);
  const call = calls[0];
  if (calls.length !== 1 || !call) throw new Error(`prompt ${index} made ${calls.length} model calls, expected 1`);
  if (call.finishedAt === undefined) throw new Error(`prompt ${index} answered before the fake model finished writing`);
  const modelMs = call.finishedAt - call.receivedAt;
  return { roundTripMs, modelMs, overheadMs: roundTripMs - modelMs };
}

/** `count` timed prompts in one session, after one prompt reported separately as `first`. */
export async function measurePromptOverhead(count: number): Promise<PromptSamples> {
  return withBenchAgent(async (bench) => {
    const sessionId = await bench.newSession();
    const first = await timedPrompt(bench, sessionId, 0);
    const samples: PromptTiming[] = [];
    for (let i = 1; i <= count; i += 1) samples.push(await timedPrompt(bench, sessionId, i));
    return { first, samples };
  });
}

/** A `kB` field (e.g. VmHWM) of a /proc/<pid>/status text. */
export function procStatusKb(status: string, pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, "m").exec(status);
  if (!match?.[1]) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]);
}

/** Peak RSS of a fresh agent after initialize, one `session/new` and one prompt. */
export async function measurePeakRss(): Promise<PeakRss> {
  return withBenchAgent(async (bench) => {
    const sessionId = await bench.newSession();
    await timedPrompt(bench, sessionId, 0);
    const pid = bench.agent.child.pid;
    if (pid === undefined) throw new Error("agent process has no pid");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return { peakKb: procStatusKb(status, pid, "VmHWM"), currentKb: procStatusKb(status, pid, "VmRSS") };
  });
}
