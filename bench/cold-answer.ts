/**
 * Issue 17 row "cold first answer": what a user waits for when the editor opens the agent panel
 * and sends a first message — process spawn → `initialize` → `session/new` → the first
 * `agent_message_chunk` of the first prompt — with the scripted model answering at once.
 *
 * Measured with raw child_process and newline-delimited JSON-RPC (no SDK in the measuring path),
 * as `startup.ts` does: each request is written the moment the previous response's line arrives.
 * The agent runs with every toolset available (`test/support/full-toolset.ts`). The budget's base
 * is the bare-Node initialize floor (`bare-initialize.mjs`, interleaved run by run) plus the
 * scripted model's own time for that prompt (request arrival to its answer handed to the socket).
 * The dependency floors (dependency-floor.ts, interleaved too) run the same exchange with only the
 * libraries loaded and no agent work: from a code cache, what no agent on these libraries can go
 * below as hermes is launched; from a V8 start-up snapshot, what it could go down to if it were
 * launched with `node --snapshot-blob`.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { BUILT_BINARY } from "../test/support/acp-client.js";
import { startFakeLlm, type FakeLlm } from "../test/support/fake-llm.js";
import { fullToolsetConfig } from "../test/support/full-toolset.js";
import { createTempHome } from "../test/support/temp-home.js";
import { buildDependencyFloors } from "./dependency-floor.js";
import { BARE_SCRIPT, INITIALIZE_LINE, timeToInitialize } from "./startup.js";

export interface ColdAnswer {
  /** Spawn → first agent_message_chunk. */
  totalMs: number;
  /** Spawn → initialize response line. */
  initializeMs: number;
  /** session/new written → its response line. */
  sessionNewMs: number;
  /** session/prompt written → first agent_message_chunk. */
  promptMs: number;
  /** The fake model's time for the prompt's one call. */
  modelMs: number;
}

export interface ColdAnswerSamples {
  bare: number[];
  cold: ColdAnswer[];
  /** The same runs against the code-cached dependency floor (dependency-floor-agent.mjs). */
  floor: ColdAnswer[];
  /** The same runs against the snapshot dependency floor (dependency-floor-snapshot.cjs). */
  snapshotFloor: ColdAnswer[];
}

interface Frame {
  id?: number | string;
  method?: string;
  result?: { sessionId?: string; stopReason?: string };
  error?: { message?: string };
  params?: { update?: { sessionUpdate?: string } };
}

/** One cold run against a fresh process (hermes, or `command`); waits for the turn to end and the process to exit. */
export async function coldFirstAnswer(env: NodeJS.ProcessEnv, llm: FakeLlm, cwd: string, command: readonly string[] = [process.execPath, BUILT_BINARY, "acp"]): Promise<ColdAnswer> {
  llm.push({ text: "Hello." });
  const before = llm.requests.length;
  const started = performance.now();
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.write(INITIALIZE_LINE);
  const exited = once(child, "exit");
  const send = (frame: Record<string, unknown>): void => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
  };
  let initializedAt = 0;
  let sessionNewSentAt = 0;
  let sessionNewAt = 0;
  let promptSentAt = 0;
  let chunkAt = 0;
  try {
    await new Promise<void>((resolveRun, reject) => {
      let text = "";
      const onFrame = (frame: Frame): void => {
        if (frame.error && frame.id !== undefined && frame.method === undefined) throw new Error(`request ${frame.id} failed: ${frame.error.message ?? "error"}`);
        if (frame.method !== undefined && frame.id !== undefined) {
          // A request from the agent (none expected for a plain text turn): refuse it.
          send({ id: frame.id, error: { code: -32601, message: "not supported by the bench client" } });
          return;
        }
        if (frame.id === 0 && initializedAt === 0) {
          initializedAt = performance.now();
          sessionNewSentAt = performance.now();
          send({ id: 1, method: "session/new", params: { cwd, mcpServers: [] } });
        } else if (frame.id === 1) {
          sessionNewAt = performance.now();
          const sessionId = frame.result?.sessionId;
          if (!sessionId) throw new Error("session/new answered no sessionId");
          promptSentAt = performance.now();
          send({ id: 2, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "Say hello." }] } });
        } else if (frame.method === "session/update" && frame.params?.update?.sessionUpdate === "agent_message_chunk" && chunkAt === 0) {
          chunkAt = performance.now();
        } else if (frame.id === 2) {
          if (frame.result?.stopReason !== "end_turn") throw new Error(`the prompt ended with ${frame.result?.stopReason ?? "no stop reason"}`);
          resolveRun();
        }
      };
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        let end = text.indexOf("\n");
        while (end >= 0) {
          const line = text.slice(0, end).trim();
          text = text.slice(end + 1);
          try {
            if (line) onFrame(JSON.parse(line) as Frame);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
          end = text.indexOf("\n");
        }
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`the agent exited (${code}) before the first answer`)));
    });
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  const calls = llm.requests.slice(before);
  const call = calls[0];
  if (calls.length !== 1 || call?.finishedAt === undefined) throw new Error(`the first prompt made ${calls.length} model calls, expected 1 finished one`);
  if (chunkAt === 0) throw new Error("no agent_message_chunk before the turn ended");
  return {
    totalMs: chunkAt - started,
    initializeMs: initializedAt - started,
    sessionNewMs: sessionNewAt - sessionNewSentAt,
    promptMs: chunkAt - promptSentAt,
    modelMs: call.finishedAt - call.receivedAt,
  };
}

/**
 * `runs` cold runs interleaved with the bare floor and the dependency floor (the order rotating run
 * by run), after one untimed warm-up of each.
 */
export async function measureColdAnswer(runs: number): Promise<ColdAnswerSamples> {
  const llm = await startFakeLlm();
  const home = createTempHome({ baseUrl: llm.baseUrl });
  home.writeConfig(fullToolsetConfig(llm.baseUrl));
  try {
    const env = home.env();
    const bareCommand = [process.execPath, BARE_SCRIPT];
    const floors = await buildDependencyFloors();
    const floorEnv = { ...env, FLOOR_BASE_URL: llm.baseUrl };
    const bare: number[] = [];
    const cold: ColdAnswer[] = [];
    const floor: ColdAnswer[] = [];
    const snapshotFloor: ColdAnswer[] = [];
    const measures = [
      async () => bare.push(await timeToInitialize(bareCommand, env)),
      async () => cold.push(await coldFirstAnswer(env, llm, home.workspace)),
      async () => floor.push(await coldFirstAnswer(floorEnv, llm, home.workspace, floors.codeCache)),
      async () => snapshotFloor.push(await coldFirstAnswer(floorEnv, llm, home.workspace, floors.snapshot)),
    ];
    await timeToInitialize(bareCommand, env);
    await coldFirstAnswer(env, llm, home.workspace);
    await coldFirstAnswer(floorEnv, llm, home.workspace, floors.codeCache);
    await coldFirstAnswer(floorEnv, llm, home.workspace, floors.snapshot);
    for (let run = 0; run < runs; run += 1) {
      for (let step = 0; step < measures.length; step += 1) await measures[(run + step) % measures.length]?.();
    }
    return { bare, cold, floor, snapshotFloor };
  } finally {
    await llm.close();
    home.cleanup();
  }
}
