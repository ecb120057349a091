import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type SessionConfigOption } from "@agentclientprotocol/sdk/unstable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionAsker } from "../src/runtime/approvals.js";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentEvent, AgentSession } from "../src/runtime/session.js";
import { fakeSignature, startFakeAnthropic, type FakeAnthropic } from "./support/fake-anthropic.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { connectInMemory } from "./support/in-memory-acp.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * Extended thinking and reasoning effort through the real runtime: a Claude model behind the
 * scripted Messages API server (which checks thinking signatures and refuses a tool use continued
 * without its thinking block, as the API does), an OpenAI-compatible one beside it, state.db on a
 * temp home, and restarts (a new Runtime on the same home restoring the session, as session/load does).
 */

const denyAll: PermissionAsker = {
  askCommand: async () => ({ outcome: "deny" }) as never,
  askEdit: async () => ({ outcome: "deny" }) as never,
};

let llm: FakeLlm;
let claude: FakeAnthropic;
let home: TempHome;
const runtimes: Runtime[] = [];
const sessions: AgentSession[] = [];

function config(extra: string[] = []): void {
  home.writeConfig(
    [
      "model:",
      "  provider: claude",
      "  default: claude-haiku-4-5",
      "providers:",
      "  claude:",
      `    base_url: ${claude.baseUrl}`,
      "    api_mode: anthropic_messages",
      "    api_key: sk-ant-thinking-secret",
      "  openai-like:",
      `    base_url: ${llm.baseUrl}`,
      "    api_key: sk-openai-like",
      ...extra,
    ].join("\n"),
  );
}

function newRuntime(): Runtime {
  const runtime = new Runtime({ home: home.home, env: home.env() });
  runtimes.push(runtime);
  return runtime;
}

function track(session: AgentSession | undefined): AgentSession {
  if (!session) throw new Error("no session");
  sessions.push(session);
  return session;
}

beforeEach(async () => {
  llm = await startFakeLlm();
  claude = await startFakeAnthropic();
  home = createTempHome();
  config();
});

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  for (const runtime of runtimes.splice(0)) runtime.directory.close();
  await Promise.all([llm.close(), claude.close()]);
  home.cleanup();
});

async function ask(session: AgentSession, text: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const result = await session.prompt(text, { emit: (event) => events.push(event), signal: new AbortController().signal, asker: denyAll });
  expect(result.stopReason).toBe("end_turn");
  return events;
}

const PLAN = "The notes file should say what to buy. Read it first.";

describe("extended thinking through the runtime", () => {
  it("streams thoughts, sends the signed thinking block back before the tool use, and still after a restart", async () => {
    writeFileSync(join(home.workspace, "notes.txt"), "remember the milk\n");
    const runtime = newRuntime();
    const session = track(await runtime.sessions.create(home.workspace));
    expect(session.supportsReasoningEffort).toBe(true);
    session.setReasoningEffort("high");
    claude.push({ thinking: PLAN, tool_use: [{ id: "toolu_read", name: "read_file", input: { path: "notes.txt" } }] }, { text: "Buy milk." });
    const events = await ask(session, "what do my notes say?");
    const thoughts = events.filter((event) => event.type === "reasoning_delta").map((event) => (event as { text: string }).text);
    expect(thoughts.length).toBeGreaterThan(1);
    expect(thoughts.join("")).toBe(PLAN);

    const [first, second] = claude.messageBodies();
    expect(first.thinking).toMatchObject({ type: "enabled" });
    expect(first.max_tokens).toBeGreaterThan(first.thinking.budget_tokens);
    // the call that continues the tool use carries the thinking block, signed, before the tool use (the server checks it)
    expect(second.thinking).toMatchObject({ type: "enabled" });
    const turn = second.messages[1].content;
    expect(turn[0]).toEqual({ type: "thinking", thinking: PLAN, signature: fakeSignature(PLAN) });
    expect(turn[1]).toMatchObject({ type: "tool_use", id: "toolu_read", name: "read_file" });
    await session.saved();
    const id = session.id;
    await session.dispose();
    sessions.splice(sessions.indexOf(session), 1);
    runtime.directory.close();

    // a restart: the stored block (and the stored effort) come back with the session
    const restarted = newRuntime();
    const loaded = track(await restarted.sessions.restore(id));
    expect(loaded.reasoningEffort).toBe("high");
    claude.push({ text: "Still milk." });
    await ask(loaded, "and now?");
    const third = claude.messageBodies()[2];
    expect(third.thinking).toMatchObject({ type: "enabled" });
    expect(third.messages[1].content[0]).toEqual({ type: "thinking", thinking: PLAN, signature: fakeSignature(PLAN) });
  });

  it("keeps redacted thinking too and sends no thinking for a Claude model without an effort", async () => {
    const session = track(await newRuntime().sessions.create(home.workspace));
    expect(session.reasoningEffort).toBeUndefined();
    claude.push({ thinking: "hm", redactedThinking: "b3BhcXVl", tool_use: [{ id: "toolu_t", name: "todo", input: {} }] }, { text: "ok" });
    await ask(session, "plan something");
    const [first, second] = claude.messageBodies();
    expect(first.thinking).toBeUndefined();
    // thinking is off, yet the blocks go back verbatim (the API ignores what it no longer needs)
    expect(second.messages[1].content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "hm", signature: fakeSignature("hm") },
      { type: "redacted_thinking", data: "b3BhcXVl" },
    ]);
  });
});

describe("reasoning effort kept with the session", () => {
  it("survives a restart and is copied on fork", async () => {
    const runtime = newRuntime();
    const session = track(await runtime.sessions.create(home.workspace));
    session.setReasoningEffort("low");
    claude.push({ text: "hi" });
    await ask(session, "hello");
    expect(claude.messageBodies()[0].thinking).toEqual({ type: "enabled", budget_tokens: 2_048 });
    // a later change is stored too
    session.setReasoningEffort("medium");
    await session.saved();
    expect(runtime.directory.get(session.id)).toBeDefined();
    const id = session.id;

    const restarted = newRuntime();
    const loaded = track(await restarted.sessions.restore(id));
    expect(loaded.reasoningEffort).toBe("medium");
    claude.push({ text: "again" });
    await ask(loaded, "once more");
    expect(claude.messageBodies()[1].thinking).toEqual({ type: "enabled", budget_tokens: 8_000 });

    await loaded.saved();
    const fork = track(await restarted.sessions.fork(id, home.workspace));
    expect(fork.id).not.toBe(id);
    expect(fork.reasoningEffort).toBe("medium");
    claude.push({ text: "forked" });
    await ask(fork, "from the fork");
    expect(claude.messageBodies()[2].thinking).toEqual({ type: "enabled", budget_tokens: 8_000 });
  });

  it("is stored for a session set before its first message", async () => {
    const runtime = newRuntime();
    const session = track(await runtime.sessions.create(home.workspace));
    session.setReasoningEffort("none");
    claude.push({ text: "hi" });
    await ask(session, "hello");
    expect(claude.messageBodies()[0].thinking).toBeUndefined();
    await session.saved();
    const loaded = track(await newRuntime().sessions.restore(session.id));
    expect(loaded.reasoningEffort).toBe("none");
  });
});

describe("agent.reasoning_overrides", () => {
  it("picks the effort per model, agent.reasoning_effort otherwise, until the user sets one", async () => {
    config(["agent:", "  reasoning_effort: low", "  reasoning_overrides:", '    "claude-haiku-*": high', "    openai/o3: medium"]);
    const runtime = newRuntime();
    const session = track(await runtime.sessions.create(home.workspace));
    expect(session.reasoningEffort).toBe("high");
    claude.push({ text: "a" });
    await ask(session, "one");
    expect(claude.messageBodies()[0].thinking).toEqual({ type: "enabled", budget_tokens: 24_000 });

    await runtime.sessions.switchModel(session, "openai-like:o3");
    expect(session.reasoningEffort).toBe("medium");
    llm.push({ text: "b" });
    await ask(session, "two");
    await runtime.sessions.switchModel(session, "openai-like:gpt-5");
    expect(session.reasoningEffort).toBe("low");
    llm.push({ text: "c" });
    await ask(session, "three");
    session.setReasoningEffort("high");
    llm.push({ text: "d" });
    await ask(session, "four");
    const efforts = llm.requests.filter((request) => request.path.endsWith("/chat/completions")).map((request) => request.body.reasoning_effort);
    expect(efforts).toEqual(["medium", "low", "high"]);
  });
});

describe("over ACP", () => {
  it("set_config_option reasoning_effort is kept through a restart and session/load; thoughts arrive as agent_thought_chunk", async () => {
    const effortOf = (options: SessionConfigOption[] | null | undefined) => options?.find((option) => option.id === "reasoning_effort")?.currentValue;
    const first = connectInMemory({ home: home.home, env: home.env() });
    await first.initialize();
    const { sessionId } = await first.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    const set = await first.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "reasoning_effort", value: "high" });
    expect(effortOf(set.configOptions)).toBe("high");
    claude.push({ thinking: PLAN, tool_use: [{ id: "toolu_t", name: "todo", input: {} }] }, { text: "Planned." });
    const answer = await first.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "plan it" }] });
    expect(answer.stopReason).toBe("end_turn");
    const thoughts = first.updates.map((note) => note.update).filter((update) => update.sessionUpdate === "agent_thought_chunk");
    expect(thoughts.map((update) => ("content" in update && update.content.type === "text" ? update.content.text : "")).join("")).toBe(PLAN);
    await first.close();

    const second = connectInMemory({ home: home.home, env: home.env() });
    try {
      await second.initialize();
      const loaded = await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: home.workspace, mcpServers: [] });
      expect(effortOf(loaded.configOptions)).toBe("high");
      claude.push({ text: "Again." });
      await second.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
      const last = claude.messageBodies().at(-1);
      expect(last.thinking).toEqual({ type: "enabled", budget_tokens: 24_000 });
      expect(last.messages[1].content[0]).toEqual({ type: "thinking", thinking: PLAN, signature: fakeSignature(PLAN) });
    } finally {
      await second.close();
    }
  });
});
