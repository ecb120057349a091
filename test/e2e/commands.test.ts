import {
  methods,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";

/** Issue 6 end to end: slash commands, and prompts that arrive while a turn runs (redirect, queue, steer, interrupt; issue 16). */
const suite = e2eSuite();

/**
 * A permission answer the test gives when it chooses: the turn that asks waits for it, so the
 * test knows a turn is running without depending on timing.
 */
interface PermissionGate {
  /** Resolves with the request once the agent has asked. */
  asked: Promise<RequestPermissionRequest>;
  answer(optionId: string): void;
}

function permissionGate(): PermissionGate & { handler: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse> } {
  let onAsked!: (request: RequestPermissionRequest) => void;
  let onAnswer!: (response: RequestPermissionResponse) => void;
  const asked = new Promise<RequestPermissionRequest>((resolve) => (onAsked = resolve));
  const answered = new Promise<RequestPermissionResponse>((resolve) => (onAnswer = resolve));
  return {
    asked,
    answer: (optionId) => onAnswer({ outcome: { outcome: "selected", optionId } }),
    handler: (request) => {
      onAsked(request);
      return answered;
    },
  };
}

interface Harness {
  agent: AgentProcess;
  /** Resolves with the first update (already received or still to come) that matches. */
  nextUpdate(match: (notification: SessionNotification) => boolean): Promise<SessionNotification>;
}

async function startAgent(onPermission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>): Promise<Harness> {
  const waiters: Array<{ match: (n: SessionNotification) => boolean; resolve: (n: SessionNotification) => void }> = [];
  const agent = spawnAgent({
    env: suite.home.env(),
    ...(onPermission ? { onPermission } : {}),
    onUpdate: (notification) => {
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(notification)) waiter.resolve(notification);
        else waiters.push(waiter);
      }
    },
  });
  suite.agents.push(agent);
  await agent.initialize();
  return {
    agent,
    nextUpdate: (match) => {
      const found = agent.updates.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

async function newSession(agent: AgentProcess): Promise<string> {
  return (await agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] })).sessionId;
}

function prompt(agent: AgentProcess, sessionId: string, text: string) {
  return agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function textOf(update: SessionUpdate): string {
  return "content" in update && update.content && "text" in update.content ? update.content.text : "";
}

/** Sends `text` and answers the agent's message text sent for it (a local command's reply). */
async function command(agent: AgentProcess, sessionId: string, text: string): Promise<string> {
  const before = agent.updates.length;
  const response = await prompt(agent, sessionId, text);
  expect(response.stopReason).toBe("end_turn");
  return agent.updates
    .slice(before)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk")
    .map((n) => textOf(n.update))
    .join("");
}

const isCommandsUpdate = (sessionId: string) => (n: SessionNotification) =>
  n.sessionId === sessionId && n.update.sessionUpdate === "available_commands_update";

/** Line numbers on stdout of the response carrying `sessionId` and of that session's commands update. */
function stdoutOrder(agent: AgentProcess, sessionId: string): { response: number; commands: number[] } {
  const frames = agent.stdoutLines().map((line) => JSON.parse(line) as { result?: { sessionId?: string }; params?: SessionNotification });
  return {
    response: frames.findIndex((frame) => frame.result?.sessionId === sessionId),
    commands: frames.flatMap((frame, index) =>
      frame.params?.sessionId === sessionId && frame.params.update?.sessionUpdate === "available_commands_update" ? [index] : [],
    ),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- recorded request bodies are plain JSON
const messagesOf = (index: number): any[] => suite.llm.requests.filter((r) => r.path.endsWith("/chat/completions"))[index]?.body.messages ?? [];

describe("slash commands over ACP", () => {
  it("advertises the commands right after the session/new response", async () => {
    const { agent, nextUpdate } = await startAgent();
    const sessionId = await newSession(agent);
    const { update } = await nextUpdate(isCommandsUpdate(sessionId));
    if (update.sessionUpdate !== "available_commands_update") throw new Error("unreachable");
    expect(update.availableCommands.map((c) => c.name)).toEqual(["help", "model", "tools", "context", "reset", "compress", "rollback", "steer", "queue", "version", "status"]);
    expect(update.availableCommands.find((c) => c.name === "model")?.input).toEqual({ hint: "model name to switch to" });
    const order = stdoutOrder(agent, sessionId);
    expect(order.commands).toHaveLength(1);
    expect(order.response).toBeGreaterThanOrEqual(0);
    expect(order.commands[0]).toBeGreaterThan(order.response);
  });

  it("advertises them again after load (after the replay and the response), resume and fork", async () => {
    const first = await startAgent();
    const sessionId = await newSession(first.agent);
    suite.llm.push({ text: "hi there" });
    await prompt(first.agent, sessionId, "hello");
    await first.agent.close();

    const { agent, nextUpdate } = await startAgent();
    await agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    await nextUpdate(isCommandsUpdate(sessionId));
    const forSession = agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update.sessionUpdate);
    expect(forSession).toEqual(["user_message_chunk", "agent_message_chunk", "available_commands_update"]);
    const lines = agent.stdoutLines();
    const loadResponse = lines.findIndex((line) => line.includes('"result"') && line.includes('"modes"'));
    expect(stdoutOrder(agent, sessionId).commands[0]).toBeGreaterThan(loadResponse);

    await agent.connection.agent.request(methods.agent.session.resume, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    await nextUpdate((n) => isCommandsUpdate(sessionId)(n) && agent.updates.filter(isCommandsUpdate(sessionId)).length === 2);
    const fork = await agent.connection.agent.request(methods.agent.session.fork, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    await nextUpdate(isCommandsUpdate(fork.sessionId));
  });

  it("answers /help, /status and /version locally, and sends an unknown /word to the model", async () => {
    const { agent } = await startAgent();
    const sessionId = await newSession(agent);
    expect(await command(agent, sessionId, "/help")).toContain("Unrecognized /commands are sent to the model as normal messages.");
    expect(await command(agent, sessionId, "/version")).toMatch(/^Hermes Agent v\d+\.\d+\.\d+/);
    const status = await command(agent, sessionId, "/status");
    expect(status).toContain(`Session: ${sessionId}`);
    expect(status).toContain("Model: test-model");
    expect(suite.llm.requests).toHaveLength(0);

    expect(await command(agent, sessionId, "/model")).toBe("Current model: test-model\nProvider: custom");
    expect(suite.llm.requests).toHaveLength(0);

    suite.llm.push({ text: "no such command, but here is an answer" });
    expect(await command(agent, sessionId, "/frobnicate the widgets")).toBe("no such command, but here is an answer");
    expect(messagesOf(0).at(-1)).toEqual({ role: "user", content: "/frobnicate the widgets" });
  });

  it("/model <name> switches the model from the next turn", async () => {
    const { agent } = await startAgent();
    const sessionId = await newSession(agent);
    expect(await command(agent, sessionId, "/model other-model")).toBe("Model switched to: other-model\nProvider: custom");
    expect(await command(agent, sessionId, "/status")).toContain("Model: other-model");
    suite.llm.push({ text: "hello from the other model" });
    await prompt(agent, sessionId, "hi");
    expect(suite.llm.requests.at(-1)?.body.model).toBe("other-model");
  });

  it("/context counts the conversation; /reset clears it for the model, also after a restart", async () => {
    const first = await startAgent();
    const sessionId = await newSession(first.agent);
    expect(await command(first.agent, sessionId, "/context")).toContain("Conversation is empty (no messages yet).");
    suite.llm.push({ text: "first answer" });
    await prompt(first.agent, sessionId, "first question");
    const context = await command(first.agent, sessionId, "/context");
    expect(context).toContain("Conversation: 2 messages");
    expect(context).toContain("user: 1, assistant: 1, tool: 0");
    expect(context).toContain("Model: test-model");
    expect(context).toMatch(/Context usage: ~[\d,]+ \/ [\d,]+ tokens \(\d+\.\d%\)\nCompression: ~[\d,]+ tokens until threshold/);

    expect(await command(first.agent, sessionId, "/reset")).toBe("Conversation history cleared.");
    expect(await command(first.agent, sessionId, "/context")).toContain("Conversation is empty (no messages yet).");
    suite.llm.push({ text: "second answer" });
    await prompt(first.agent, sessionId, "second question");
    expect(messagesOf(1).slice(1)).toEqual([{ role: "user", content: "second question" }]);
    expect(suite.llm.requests).toHaveLength(2);
    await first.agent.close();

    // Another process: the replay and the model start after the reset.
    const { agent } = await startAgent();
    await agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    const replayed = agent.updates.filter((n) => n.sessionId === sessionId).map((n) => textOf(n.update));
    expect(replayed.join("|")).toBe("second question|second answer");
    suite.llm.push({ text: "third answer" });
    await prompt(agent, sessionId, "third question");
    expect(messagesOf(2).slice(1).map((m: { content: string }) => m.content)).toEqual(["second question", "second answer", "third question"]);
  });

  it("/compress summarizes the middle with the model and reports the change", async () => {
    suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\ncompression:\n  protect_first_n: 1\n  protect_last_n: 1\n`);
    const { agent } = await startAgent();
    const sessionId = await newSession(agent);
    expect(await command(agent, sessionId, "/compress")).toBe("Nothing to compress — conversation is empty.");
    suite.llm.push({ text: "answer one" }, { text: "answer two" });
    await prompt(agent, sessionId, "question one");
    await prompt(agent, sessionId, "question two");
    suite.llm.push({ text: "The user asked two questions." });
    expect(await command(agent, sessionId, "/compress")).toMatch(/^Context compressed: 4 -> [23] messages, ~[\d,]+ -> ~[\d,]+ tokens$/);
    suite.llm.push({ text: "answer three" });
    await prompt(agent, sessionId, "question three");
    const sent = JSON.stringify(messagesOf(3));
    expect(sent).toContain("The user asked two questions.");
    expect(sent).not.toContain("answer one");
  });
});

describe("a prompt that arrives while a turn is running", () => {
  it("redirects the running turn (Hermes): answered at once, and the turn's next request ends with the correction", async () => {
    const { agent, nextUpdate } = await startAgent();
    const sessionId = await newSession(agent);
    suite.llm.push({ text: "slow answer", chunks: ["slow", " answer"], stallAfterChunks: 1 }, { text: "second answer" });
    const slow = prompt(agent, sessionId, "make the change");
    await nextUpdate((n) => n.update.sessionUpdate === "agent_message_chunk" && textOf(n.update) === "slow");

    expect(await command(agent, sessionId, "then run tests")).toMatch(/^Redirected the active turn with your correction\./);
    expect((await slow).stopReason).toBe("end_turn");
    const kinds = agent.updates
      .filter((n) => n.update.sessionUpdate === "agent_message_chunk" || n.update.sessionUpdate === "user_message_chunk")
      .map((n) => `${n.update.sessionUpdate}:${textOf(n.update)}`);
    expect(kinds).toEqual([
      "agent_message_chunk:slow",
      "agent_message_chunk:Redirected the active turn with your correction.",
      "agent_message_chunk:second answer",
    ]);
    expect(suite.llm.requests).toHaveLength(2);
    const sent = messagesOf(1).slice(1);
    expect(sent.slice(0, 2)).toEqual([
      { role: "user", content: "make the change" },
      { role: "assistant", content: "slow" },
    ]);
    expect(sent.at(-1).role).toBe("user");
    expect(sent.at(-1).content).toMatch(/^\[Context from the interrupted assistant response\]\n\[This response was interrupted by a user correction\.\][\s\S]*\n\nthen run tests$/);
  });

  it("/queue queues explicitly; the queue drains after the next turn", async () => {
    const { agent } = await startAgent();
    const sessionId = await newSession(agent);
    expect(await command(agent, sessionId, "/queue then run tests")).toBe("Queued for the next turn. (1 queued)");
    expect(suite.llm.requests).toHaveLength(0);
    suite.llm.push({ text: "changed" }, { text: "tests pass" });
    await prompt(agent, sessionId, "make the change");
    expect(messagesOf(1).at(-1)).toEqual({ role: "user", content: "then run tests" });
  });

  it("/steer reaches the model in its next request of the running turn", async () => {
    const gate = permissionGate();
    const { agent } = await startAgent(gate.handler);
    const sessionId = await newSession(agent);
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "notes.txt", content: "x\n" } }] }, { text: "done" });
    const running = prompt(agent, sessionId, "write the notes");
    await gate.asked;

    expect(await command(agent, sessionId, "/steer prefer the simpler fix")).toBe("⏩ Steer queued for the active turn: prefer the simpler fix");
    expect(await command(agent, sessionId, "/reset")).toContain("cannot run while a turn is running");
    gate.answer("allow_once");
    expect((await running).stopReason).toBe("end_turn");

    const toolResult = messagesOf(1).find((m: { role: string }) => m.role === "tool");
    expect(toolResult.content).toContain("[User guidance for the rest of this turn: prefer the simpler fix]");
    expect(suite.llm.requests).toHaveLength(2);

    // On an idle session the guidance is simply the next prompt.
    suite.llm.push({ text: "summary" });
    expect(await command(agent, sessionId, "/steer summarize the README")).toBe("summary");
    expect(messagesOf(2).at(-1)).toEqual({ role: "user", content: "summarize the README" });
  });

  it("after a cancel, the next prompt is sent together with the interrupted one", async () => {
    const gate = permissionGate();
    const { agent } = await startAgent(gate.handler);
    const sessionId = await newSession(agent);
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "deps.txt", content: "npm\n" } }] });
    const running = prompt(agent, sessionId, "install the deps");
    await gate.asked;
    await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    gate.answer("deny");

    suite.llm.push({ text: "using yarn" });
    expect((await prompt(agent, sessionId, "use yarn instead")).stopReason).toBe("end_turn");
    expect(messagesOf(1).at(-1)).toEqual({ role: "user", content: "install the deps\n\nUser correction/guidance after interrupt: use yarn instead" });

    // Only once: the prompt after that is sent as it is.
    suite.llm.push({ text: "ok" });
    await prompt(agent, sessionId, "thanks");
    expect(messagesOf(2).at(-1)).toEqual({ role: "user", content: "thanks" });
  });
});
