/**
 * DESIGN §7 start-up row: process spawn → first stdout byte of the `initialize` response.
 *
 * Both commands are spawned with raw child_process (no SDK in the measuring path), get the exact
 * same initialize line written to stdin right after `spawn()`, and are timed from just before
 * `spawn()` to the first `data` event on stdout, which must begin the JSON-RPC response to that
 * line. The baseline is bench/bare-initialize.mjs (plain Node, no libraries); the subject is
 * `node dist/hermes.js acp` with a temp HERMES_HOME configured for the fake model server: from its
 * second start on, the launcher answers from its initialize cache; `firstStart` measures a start
 * without it (the cache removed before each run).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILT_BINARY } from "../test/support/acp-client.js";
import { startFakeLlm } from "../test/support/fake-llm.js";
import { createTempHome } from "../test/support/temp-home.js";

export const BARE_SCRIPT = resolve(import.meta.dirname, "bare-initialize.mjs");

export const INITIALIZE_LINE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "hermes-bench", version: "1" } },
})}\n`;

export interface StartupSamples {
  /** Milliseconds per run, bare Node baseline. */
  bare: number[];
  /** Milliseconds per run, `node dist/hermes.js acp` (from the second start on, its initialize cache answers). */
  hermes: number[];
  /** Milliseconds per run, `node dist/hermes.js acp` with $HERMES_HOME/cache removed before each run (a first start). */
  firstStart: number[];
  /** Requests the fake model server saw while hermes started (DESIGN: none before a session needs one). */
  modelRequests: number;
}

/**
 * Milliseconds from spawning `command` to the first stdout byte, after checking that the first
 * stdout line is the answer to INITIALIZE_LINE. Waits for the process to exit (stdin closed) so
 * runs never overlap.
 */
export async function timeToInitialize(command: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [file, ...args] = command as [string, ...string[]];
  const started = performance.now();
  const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.write(INITIALIZE_LINE);
  const exited = once(child, "exit");
  let firstByteAt = 0;
  let text = "";
  try {
    const line = await new Promise<string>((resolveLine, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (text === "") firstByteAt = performance.now();
        text += chunk.toString("utf8");
        const end = text.indexOf("\n");
        if (end >= 0) resolveLine(text.slice(0, end));
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`${command.join(" ")} exited (${code}) before answering initialize`)));
    });
    const frame = JSON.parse(line) as { id?: unknown; result?: { protocolVersion?: unknown } };
    if (frame.id !== 0 || frame.result?.protocolVersion !== 1) {
      throw new Error(`${command.join(" ")}: first stdout line is not the initialize answer: ${line.slice(0, 200)}`);
    }
    return firstByteAt - started;
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * `runs` timed runs of each command, interleaved (alternating which goes first) so both share
 * the machine's noise, after one untimed warm-up run of each.
 */
export async function measureStartup(runs: number): Promise<StartupSamples> {
  const llm = await startFakeLlm();
  const home = createTempHome({ baseUrl: llm.baseUrl });
  try {
    const env = home.env();
    const bareCommand = [process.execPath, BARE_SCRIPT];
    const hermesCommand = [process.execPath, BUILT_BINARY, "acp"];
    await timeToInitialize(bareCommand, env);
    await timeToInitialize(hermesCommand, env);
    const bare: number[] = [];
    const hermes: number[] = [];
    const firstStart: number[] = [];
    const first = async (): Promise<number> => {
      rmSync(join(home.home, "cache"), { recursive: true, force: true });
      return timeToInitialize(hermesCommand, env);
    };
    for (let run = 0; run < runs; run += 1) {
      if (run % 2 === 0) {
        bare.push(await timeToInitialize(bareCommand, env));
        hermes.push(await timeToInitialize(hermesCommand, env));
        firstStart.push(await first());
      } else {
        firstStart.push(await first());
        hermes.push(await timeToInitialize(hermesCommand, env));
        bare.push(await timeToInitialize(bareCommand, env));
      }
    }
    return { bare, hermes, firstStart, modelRequests: llm.requests.length };
  } finally {
    await llm.close();
    home.cleanup();
  }
}
