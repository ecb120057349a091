import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, RequestError, type SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BUILT_BINARY, spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { startFakeLlm, type FakeLlm } from "../support/fake-llm.js";
import { createTempHome, type TempHome } from "../support/temp-home.js";

/** End to end: the built binary over stdio, driven by the ACP SDK's client app. */
let llm: FakeLlm;
let home: TempHome;
let agent: AgentProcess;

beforeAll(async () => {
  const { existsSync } = await import("node:fs");
  if (!existsSync(BUILT_BINARY)) throw new Error(`${BUILT_BINARY} is missing: run npm run build (npm test does it)`);
});

beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome({ baseUrl: llm.baseUrl });
});

afterEach(async () => {
  await agent?.close();
  await llm.close();
  home.cleanup();
});

function updatesOf(kind: string, updates: SessionNotification[] = agent.updates) {
  return updates.map((notification) => notification.update).filter((update) => update.sessionUpdate === kind);
}

function textOf(kind: string): string {
  return updatesOf(kind)
    .map((update) => ("content" in update && update.content && "text" in update.content ? update.content.text : ""))
    .join("");
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    return error as RequestError;
  }
  throw new Error("expected the request to fail");
}

function expectOnlyJsonRpcOnStdout(): void {
  const lines = agent.stdoutLines();
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    const frame = JSON.parse(line) as Record<string, unknown>;
    expect(frame.jsonrpc, line).toBe("2.0");
  }
}

describe("hermes-acp over stdio", () => {
  it("initializes, opens a session, and streams a text answer", async () => {
    agent = spawnAgent({ env: home.env() });
    const init = await agent.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toMatchObject({ name: "hermes-agent", title: "Hermes Agent" });
    expect(init.authMethods?.map((method) => method.id)).toEqual(["custom", "hermes-setup"]);
    expect(init.authMethods?.[1]).toMatchObject({ type: "terminal", args: ["--setup"] });

    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    llm.push({ text: "Hello from the model", chunks: ["Hello", " from", " the model"], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
    const response = await agent.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Say hello" }],
    });

    expect(response.stopReason).toBe("end_turn");
    expect(response.usage).toMatchObject({ inputTokens: 12, outputTokens: 3, totalTokens: 15 });
    const chunks = updatesOf("agent_message_chunk");
    expect(chunks).toHaveLength(3);
    expect(textOf("agent_message_chunk")).toBe("Hello from the model");
    const ids = new Set(chunks.map((chunk) => ("messageId" in chunk ? chunk.messageId : undefined)));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeTruthy();
    expect(llm.requests.at(-1)?.body.messages.at(-1)).toEqual({ role: "user", content: "Say hello" });
    expect(llm.requests.at(-1)?.body.model).toBe("test-model");
    expectOnlyJsonRpcOnStdout();
  });

  it("shows a read_file tool call on a real file, then the answer", async () => {
    const file = join(home.workspace, "notes.txt");
    writeFileSync(file, "alpha\nbeta\ngamma\n");
    agent = spawnAgent({ env: home.env() });
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    llm.push(
      { tool_calls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "The file has three lines." },
    );
    const response = await agent.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "What is in notes.txt?" }],
    });
    expect(response.stopReason).toBe("end_turn");

    const [start] = updatesOf("tool_call");
    expect(start).toMatchObject({
      toolCallId: "call_read",
      status: "in_progress",
      kind: "read",
      title: "read: notes.txt",
      locations: [{ path: file }],
      rawInput: { path: "notes.txt" },
    });
    const [end] = updatesOf("tool_call_update");
    expect(end).toMatchObject({ toolCallId: "call_read", status: "completed" });
    const shown = JSON.stringify(end);
    expect(shown).toContain("1|alpha");
    expect(shown).toContain(`Read ${file}`);

    const toolResult = llm.requests[1]?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(toolResult.tool_call_id).toBe("call_read");
    expect(toolResult.content).toContain("2|beta");
    expect(textOf("agent_message_chunk")).toBe("The file has three lines.");
    // The answer after the tool round is a new assistant message.
    const messageIds = new Set(updatesOf("agent_message_chunk").map((chunk) => ("messageId" in chunk ? chunk.messageId : "")));
    expect(messageIds.size).toBe(1);
    expectOnlyJsonRpcOnStdout();
  });

  it("returns cancelled exactly once when cancelled mid-stream, and the next prompt works", async () => {
    agent = spawnAgent({ env: home.env() });
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    llm.push({ text: "", chunks: ["partial ", "never ", "arrives"], delayMs: 600_000 }, { text: "second answer" });

    const prompt = agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "slow please" }] });
    while (updatesOf("agent_message_chunk").length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe("cancelled");
    expect(textOf("agent_message_chunk")).toBe("partial ");

    const responses = agent.stdoutLines().map((line) => JSON.parse(line)).filter((frame) => frame.result?.stopReason);
    expect(responses).toHaveLength(1);

    const second = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(second.stopReason).toBe("end_turn");
    // The interrupted text stays in history and is sent to the model on the next call, and the
    // next prompt carries the interrupted one (issue 6, as Hermes does).
    const sent = llm.requests.at(-1)?.body.messages.map((message: { role: string; content: unknown }) => [message.role, message.content]);
    expect(sent).toEqual(expect.arrayContaining([["assistant", "partial "], ["user", "slow please\n\nUser correction/guidance after interrupt: again"]]));
  });

  it("answers session/new with -32000 when no provider is configured", async () => {
    home.writeConfig("");
    agent = spawnAgent({ env: home.env() });
    const init = await agent.initialize();
    expect(init.authMethods?.map((method) => method.id)).toEqual(["hermes-setup"]);
    const error = await rejection(agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] }));
    expect(error.code).toBe(-32000);
    expect(error.message).toContain("hermes acp --setup");
    expect(error.message).toContain("OPENROUTER_API_KEY");
    const auth = await rejection(agent.connection.agent.request(methods.agent.authenticate, { methodId: "hermes-setup" }));
    expect(auth.code).toBe(-32000);
  });

  it("answers initialize with a broken config.yaml, and session/new names the problem", async () => {
    home.writeConfig("model:\n  provider: custom\nagent:\n  max_turns: lots\n");
    agent = spawnAgent({ env: home.env() });
    const init = await agent.initialize();
    expect(init.protocolVersion).toBe(1);
    const error = await rejection(agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] }));
    expect(error.message).toContain(join(home.home, "config.yaml"));
    expect(error.message).toContain("agent.max_turns");
    expect(error.message).toContain("line 4");
  });

  it("rejects a relative cwd and an unknown session with the ACP error codes", async () => {
    agent = spawnAgent({ env: home.env() });
    await agent.initialize();
    const relative = await rejection(agent.connection.agent.request(methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }));
    expect(relative.code).toBe(-32602);
    const unknown = await rejection(
      agent.connection.agent.request(methods.agent.session.prompt, { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }),
    );
    expect(unknown.code).toBe(-32002);
  });

  it("answers a garbage line with a parse error and keeps serving", async () => {
    agent = spawnAgent({ env: home.env() });
    agent.writeRaw("this is not json\n");
    const init = await agent.initialize();
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    expect(sessionId).toBeTruthy();
    const frames = agent.stdoutLines().map((line) => JSON.parse(line));
    expect(frames).toContainEqual(expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }));
    expectOnlyJsonRpcOnStdout();
  });

  it("serves ACP when started through a bin named hermes-acp", async () => {
    const bin = join(home.workspace, "bin");
    mkdirSync(bin);
    symlinkSync(BUILT_BINARY, join(bin, "hermes-acp"));
    agent = spawnAgent({ env: home.env(), command: [process.execPath, join(bin, "hermes-acp")] });
    const init = await agent.initialize();
    expect(init.agentInfo?.name).toBe("hermes-agent");
  });
});
