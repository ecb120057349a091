import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { methods, type RequestPermissionRequest, type RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { log } from "../src/shared/logger.js";
import { VERSION } from "../src/shared/version.js";
import { schemaProblems } from "./support/acp-schema.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { goldenLines, normalizeFrames, transcriptDiff } from "./support/golden-transcript.js";
import { connectInMemory, type InMemoryAgent, type InMemoryAgentOptions } from "./support/in-memory-acp.js";
import { sandboxUsable } from "./support/sandbox.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * Golden ACP transcripts: each scenario drives the agent app in process (`connectInMemory`, no
 * build) against the scripted model, records every frame both ends wrote, checks each against the
 * ACP schema, and compares the normalized transcript with `test/__golden__/<scenario>.jsonl`.
 * `UPDATE_GOLDEN=1` rewrites the files instead.
 */
const GOLDEN_DIR = resolve(import.meta.dirname, "__golden__");
// Session start lines on stderr say nothing here; warnings and errors still show.
log.configure({ level: "warn" });

let llm: FakeLlm;
let home: TempHome;
const pairs: InMemoryAgent[] = [];

beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome({ baseUrl: llm.baseUrl });
});

afterEach(async () => {
  await Promise.all(pairs.splice(0).map((pair) => pair.close()));
  await llm.close();
  home.cleanup();
});

/**
 * A connected pair on the test's home. The model list is fetched before anything is sent, so the
 * config options a session opens with are already final and no `config_option_update` arrives at
 * a moment that depends on the model server.
 */
async function connect(options: Omit<InMemoryAgentOptions, "home" | "env"> = {}): Promise<InMemoryAgent> {
  const pair = connectInMemory({ home: home.home, env: home.env(), ...options });
  pairs.push(pair);
  await pair.runtime.catalog();
  return pair;
}

/**
 * Waits until the agent has written nothing for a few event-loop turns: what a handler sends
 * after its response (commands, usage) is then in `frames` before the client's next request, so
 * the order of a transcript does not depend on how fast the client asks.
 */
async function settle(pair: InMemoryAgent): Promise<void> {
  let quiet = 0;
  let seen = pair.frames.length;
  while (quiet < 3) {
    await new Promise((done) => setTimeout(done, 5));
    if (pair.frames.length === seen) quiet += 1;
    else [quiet, seen] = [0, pair.frames.length];
  }
}

async function openSession(pair: InMemoryAgent): Promise<string> {
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
  await settle(pair);
  return sessionId;
}

async function prompt(pair: InMemoryAgent, sessionId: string, text: string) {
  const response = await pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  await settle(pair);
  return response;
}

/**
 * Scripted on every recorded model answer: unscripted, the fake model counts the request's JSON,
 * which holds temp paths and the OS release, and the summed usage would differ between machines.
 */
const USAGE = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };

const choose = (optionId: string) => (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

/** Schema-checks the pair's frames and compares them, normalized, with the scenario's golden file. */
function expectGolden(name: string, pair: InMemoryAgent): void {
  expect(schemaProblems(pair.frames), "every frame is valid ACP").toEqual([]);
  const lines = normalizeFrames(pair.frames, {
    literals: { [home.workspace]: "<workspace>", [home.home]: "<home>", [resolve(home.home, "..")]: "<root>", [llm.baseUrl]: "<model-server>" },
    version: VERSION,
  });
  const file = join(GOLDEN_DIR, `${name}.jsonl`);
  const golden = goldenLines(file, lines);
  const diff = transcriptDiff(name, `test/__golden__/${name}.jsonl`, lines, golden);
  if (diff) expect.fail(diff);
}

describe("golden ACP transcripts", () => {
  it("streamed-answer: initialize, session/new, a prompt answered in three chunks", async () => {
    const pair = await connect();
    const sessionId = await openSession(pair);
    llm.push({ text: "Hello from the model", chunks: ["Hello", " from", " the model"], usage: USAGE });
    expect((await prompt(pair, sessionId, "Say hello")).stopReason).toBe("end_turn");
    expectGolden("streamed-answer", pair);
  });

  it("permission-allow-once: `rm -rf build` asks, the user allows once, the command runs", async (context) => {
    if (!(await sandboxUsable())) return context.skip();
    mkdirSync(join(home.workspace, "build"));
    const pair = await connect({ onPermission: choose("allow_once") });
    const sessionId = await openSession(pair);
    llm.push(
      { tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }], usage: USAGE },
      { text: "Removed build.", usage: USAGE },
    );
    expect((await prompt(pair, sessionId, "clean the build folder")).stopReason).toBe("end_turn");
    expect(pair.permissions.map((request: RequestPermissionRequest) => request.toolCall.toolCallId)).toEqual(["t1"]);
    expect(existsSync(join(home.workspace, "build"))).toBe(false);
    expectGolden("permission-allow-once", pair);
  });

  it("edit-denied: write_file to .env asks, the user denies, nothing is written", async () => {
    const pair = await connect({ onPermission: choose("deny") });
    const sessionId = await openSession(pair);
    llm.push(
      { tool_calls: [{ id: "w1", name: "write_file", arguments: { path: ".env", content: "SECRET=1\n" } }], usage: USAGE },
      { text: "Left it alone.", usage: USAGE },
    );
    expect((await prompt(pair, sessionId, "write the env file")).stopReason).toBe("end_turn");
    expect(pair.permissions).toHaveLength(1);
    expect(existsSync(join(home.workspace, ".env"))).toBe(false);
    expectGolden("edit-denied", pair);
  });

  it("cancel-mid-stream: session/cancel after the first chunk ends the turn as cancelled", async () => {
    const pair = await connect();
    const sessionId = await openSession(pair);
    llm.push({ text: "", chunks: ["partial ", "never ", "arrives"], delayMs: 600_000 });
    const running = pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "slow please" }] });
    while (!pair.updates.some((n) => n.update.sessionUpdate === "agent_message_chunk")) await new Promise((done) => setTimeout(done, 5));
    await pair.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    await settle(pair);
    expectGolden("cancel-mid-stream", pair);
  });

  it("session-load-replay: a stored session with a read_file call, loaded by a fresh runtime", async () => {
    writeFileSync(join(home.workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
    const first = await connect();
    const sessionId = await openSession(first);
    llm.push({ tool_calls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "The file has three lines." });
    expect((await prompt(first, sessionId, "What is in notes.txt?")).stopReason).toBe("end_turn");
    await first.close();

    // A new runtime on the same home, as after a restart; only this connection is recorded.
    const second = await connect();
    await second.initialize();
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: home.workspace, mcpServers: [] });
    await settle(second);
    expectGolden("session-load-replay", second);
  });

  it("slash-commands: /help and /status are answered locally, without the model", async () => {
    const pair = await connect();
    const sessionId = await openSession(pair);
    expect((await prompt(pair, sessionId, "/help")).stopReason).toBe("end_turn");
    expect((await prompt(pair, sessionId, "/status")).stopReason).toBe("end_turn");
    expect(llm.requests).toEqual([]);
    expectGolden("slash-commands", pair);
  });
});

