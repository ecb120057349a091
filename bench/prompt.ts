/**
 * DESIGN §7 prompt rows.
 *
 * Adapter overhead: for each prompt, the time from the client sending `session/prompt` to receiving
 * its response, minus the model's time as the fake server saw it (request arrival to its whole
 * answer handed to the socket). What remains is the agent's own work plus stdio and loopback
 * transport: parsing, building the model request, relaying the streamed answer as updates,
 * and answering. Each prompt gets a short streamed text answer and makes exactly one model call.
 *
 * Peak RSS: `VmHWM` of the agent process (from /proc) after initialize, one session and one prompt,
 * with every toolset enabled (`test/support/full-toolset.ts`). Idle RSS: `VmRSS` once `initialize`
 * has answered and the warm-up after it has settled (IDLE_SETTLE_MS later), before any session.
 */
import { readFileSync } from "node:fs";
import { FORM_CAPABLE_CLIENT, fullToolsetConfig } from "../test/support/full-toolset.js";
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
  /** Milliseconds between session/new's answer and the first prompt. */
  pauseMs: number;
  samples: PromptTiming[];
}

export interface PeakRss {
  /** VmHWM in kB, as /proc reports it (KiB). */
  peakKb: number;
  /** VmRSS in kB at the same moment. */
  currentKb: number;
  /** VmRSS in kB right after `initialize` answered. */
  initializedKb: number;
  /** VmRSS in kB IDLE_SETTLE_MS after `initialize` answered (the warm-up done), before any session. */
  idleKb: number;
  /** VmRSS in kB REDUCED_IDLE_MS after `initialize` answered, still before any session. */
  reducedIdleKb: number;
}

/** How long the agent is left alone after `initialize` before its idle RSS is read (the warm-up takes ~0.2 s). */
export const IDLE_SETTLE_MS = 1500;

/**
 * When the idle RSS is read a second time: after V8's memory reducer had its first chance (it runs
 * ~8 s after start-up's last full GC on an idle isolate and hands back the young generation).
 */
export const REDUCED_IDLE_MS = 10_000;

/** How long a person takes to type the first prompt, in the row that measures the first prompt as users meet it. */
export const TYPING_PAUSE_MS = 1000;

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

/**
 * `count` timed prompts in one session, after one prompt reported separately as `first`, sent
 * `pauseMs` after session/new answered (0: at once).
 */
export async function measurePromptOverhead(count: number, pauseMs = 0): Promise<PromptSamples> {
  return withBenchAgent(async (bench) => {
    const sessionId = await bench.newSession();
    if (pauseMs > 0) await sleep(pauseMs);
    const first = await timedPrompt(bench, sessionId, 0);
    const samples: PromptTiming[] = [];
    for (let i = 1; i <= count; i += 1) samples.push(await timedPrompt(bench, sessionId, i));
    return { first, samples, pauseMs };
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A `kB` field (e.g. VmHWM) of a /proc/<pid>/status text. */
export function procStatusKb(status: string, pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, "m").exec(status);
  if (!match?.[1]) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]);
}

/** RSS of a fresh agent with every toolset enabled: after initialize, idle after it, and at peak after one `session/new` and one prompt. */
export async function measurePeakRss(): Promise<PeakRss> {
  return withBenchAgent(
    async (bench) => {
      const pid = bench.agent.child.pid;
      if (pid === undefined) throw new Error("agent process has no pid");
      const status = (): string => readFileSync(`/proc/${pid}/status`, "utf8");
      const initializedKb = procStatusKb(status(), pid, "VmRSS");
      const answered = performance.now();
      await sleep(IDLE_SETTLE_MS);
      const idleKb = procStatusKb(status(), pid, "VmRSS");
      await sleep(REDUCED_IDLE_MS - (performance.now() - answered));
      const reducedIdleKb = procStatusKb(status(), pid, "VmRSS");
      const sessionId = await bench.newSession();
      await timedPrompt(bench, sessionId, 0);
      const after = status();
      return { peakKb: procStatusKb(after, pid, "VmHWM"), currentKb: procStatusKb(after, pid, "VmRSS"), initializedKb, idleKb, reducedIdleKb };
    },
    { config: (baseUrl) => fullToolsetConfig(baseUrl), clientCapabilities: FORM_CAPABLE_CLIENT },
  );
}
