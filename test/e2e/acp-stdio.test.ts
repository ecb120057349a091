import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { methods, RequestError, type SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { BUILT_BINARY, spawnAgent } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";

/** End to end: the built binary over stdio, driven by the ACP SDK's client app. */
const suite = e2eSuite();

function updatesOf(kind: string, updates: SessionNotification[] = suite.agent!.updates) {
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
  const lines = suite.agent!.stdoutLines();
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    const frame = JSON.parse(line) as Record<string, unknown>;
    expect(frame.jsonrpc, line).toBe("2.0");
  }
}

describe("hermes-acp over stdio", () => {
  it("initializes, opens a session, and streams a text answer", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    const init = await suite.agent.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toMatchObject({ name: "hermes-agent", title: "Hermes Agent" });
    // No terminal auth for a client that did not opt in (see the auth tests below).
    expect(init.authMethods?.map((method) => method.id)).toEqual(["custom", "hermes-env"]);

    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "Hello from the model", chunks: ["Hello", " from", " the model"], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
    const response = await suite.agent.connection.agent.request(methods.agent.session.prompt, {
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
    expect(suite.llm.requests.at(-1)?.body.messages.at(-1)).toEqual({ role: "user", content: "Say hello" });
    expect(suite.llm.requests.at(-1)?.body.model).toBe("test-model");
    expectOnlyJsonRpcOnStdout();
  });

  it("shows a read_file tool call on a real file, then the answer", async () => {
    const file = join(suite.home.workspace, "notes.txt");
    writeFileSync(file, "alpha\nbeta\ngamma\n");
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push(
      { tool_calls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "The file has three lines." },
    );
    const response = await suite.agent.connection.agent.request(methods.agent.session.prompt, {
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

    const toolResult = suite.llm.requests[1]?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(toolResult.tool_call_id).toBe("call_read");
    expect(toolResult.content).toContain("2|beta");
    expect(textOf("agent_message_chunk")).toBe("The file has three lines.");
    // The answer after the tool round is a new assistant message.
    const messageIds = new Set(updatesOf("agent_message_chunk").map((chunk) => ("messageId" in chunk ? chunk.messageId : "")));
    expect(messageIds.size).toBe(1);
    expectOnlyJsonRpcOnStdout();
  });

  it("returns cancelled exactly once when cancelled mid-stream, and the next prompt works", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "", chunks: ["partial ", "never ", "arrives"], delayMs: 600_000 }, { text: "second answer" });

    const prompt = suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "slow please" }] });
    while (updatesOf("agent_message_chunk").length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await suite.agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe("cancelled");
    expect(textOf("agent_message_chunk")).toBe("partial ");

    const responses = suite.agent.stdoutLines().map((line) => JSON.parse(line)).filter((frame) => frame.result?.stopReason);
    expect(responses).toHaveLength(1);

    const second = await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(second.stopReason).toBe("end_turn");
    // The interrupted text stays in history and is sent to the model on the next call, and the
    // next prompt carries the interrupted one (issue 6, as Hermes does).
    const sent = suite.llm.requests.at(-1)?.body.messages.map((message: { role: string; content: unknown }) => [message.role, message.content]);
    expect(sent).toEqual(expect.arrayContaining([["assistant", "partial "], ["user", "slow please\n\nUser correction/guidance after interrupt: again"]]));
  });

  it("answers session/new with -32000 when no provider is configured", async () => {
    suite.home.writeConfig("");
    suite.agent = spawnAgent({ env: suite.home.env() });
    const init = await suite.agent.initialize();
    expect(init.authMethods?.map((method) => method.id)).toEqual(["hermes-env"]);
    const error = await rejection(suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] }));
    expect(error.code).toBe(-32000);
    expect(error.message).toContain("hermes acp --setup");
    expect(error.message).toContain("OPENROUTER_API_KEY");
    const auth = await rejection(suite.agent.connection.agent.request(methods.agent.authenticate, { methodId: "hermes-setup" }));
    expect(auth.code).toBe(-32000);
    const env = await rejection(suite.agent.connection.agent.request(methods.agent.authenticate, { methodId: "hermes-env" }));
    expect(env.code).toBe(-32000);
    expect(env.message).toContain("OPENROUTER_API_KEY");
    expect(env.message).toContain(join(suite.home.home, ".env"));
  });

  it("offers terminal auth only to a client that opts in, and authenticates once .env has a key", async () => {
    suite.home.writeConfig("");
    suite.agent = spawnAgent({ env: suite.home.env(), clientCapabilities: { auth: { terminal: true } } });
    const init = await suite.agent.initialize();
    expect(init.authMethods?.map((method) => method.id)).toEqual(["hermes-env", "hermes-setup"]);
    expect(init.authMethods?.[1]).toMatchObject({ type: "terminal", args: ["--setup"], _meta: { "terminal-auth": { command: process.execPath, args: [BUILT_BINARY, "acp", "--setup"] } } });
    writeFileSync(join(suite.home.home, ".env"), "OPENROUTER_API_KEY=sk-or-written-after-start-0123\n");
    expect(await suite.agent.connection.agent.request(methods.agent.authenticate, { methodId: "hermes-env" })).toEqual({});
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    expect(sessionId).toBeTruthy();
  });

  it("answers initialize with a broken config.yaml, and session/new names the problem", async () => {
    suite.home.writeConfig("model:\n  provider: custom\nagent:\n  max_turns: lots\n");
    suite.agent = spawnAgent({ env: suite.home.env() });
    const init = await suite.agent.initialize();
    expect(init.protocolVersion).toBe(1);
    const error = await rejection(suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] }));
    expect(error.message).toContain(join(suite.home.home, "config.yaml"));
    expect(error.message).toContain("agent.max_turns");
    expect(error.message).toContain("line 4");
  });

  it("rejects a relative cwd and an unknown session with the ACP error codes", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const relative = await rejection(suite.agent.connection.agent.request(methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }));
    expect(relative.code).toBe(-32602);
    const unknown = await rejection(
      suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }),
    );
    expect(unknown.code).toBe(-32002);
  });

  it("answers a garbage line with a parse error and keeps serving", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    suite.agent.writeRaw("this is not json\n");
    const init = await suite.agent.initialize();
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    expect(sessionId).toBeTruthy();
    const frames = suite.agent.stdoutLines().map((line) => JSON.parse(line));
    expect(frames).toContainEqual(expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }));
    expectOnlyJsonRpcOnStdout();
  });

  it("serves ACP from the hermes-acp entry with no arguments, by its own path or through a bin link of any name", async () => {
    const entry = join(dirname(BUILT_BINARY), "hermes-acp.js");
    // npm links bins on Unix; its Windows .cmd shims run the entry file itself. Neither name matters.
    const bin = join(suite.home.workspace, "bin");
    mkdirSync(bin);
    symlinkSync(entry, join(bin, "some-other-name"));
    for (const command of [[process.execPath, entry], [process.execPath, join(bin, "some-other-name")]]) {
      const agent = spawnAgent({ env: suite.home.env(), command });
      suite.agents.push(agent);
      const init = await agent.initialize();
      expect(init.agentInfo?.name).toBe("hermes-agent");
    }
  });
});
