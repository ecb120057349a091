import { methods, type RequestPermissionResponse, type SessionNotification, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { REDIRECTED_REPLY } from "../src/acp/prompt-handler.js";
import { REDIRECT_MARKER, REDIRECT_PLACEHOLDER } from "../src/agent/redirect.js";
import { log } from "../src/shared/logger.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { schemaProblems } from "./support/acp-schema.js";
import type { InMemoryAgent } from "./support/in-memory-acp.js";

/**
 * Issue 16: Hermes' mid-turn behaviour over ACP (a plain prompt redirects the running turn, `/queue`
 * queues, a prompt after a cancel carries the cancelled one) and `usage_update` after local commands.
 * Turns are kept running by a stalled stream or a permission request the test answers when it
 * chooses, never by time.
 */
log.configure({ level: "warn" });
const suite = acpPairSuite();

interface Harness {
  pair: InMemoryAgent;
  sessionId: string;
  /** Resolves with the first update (already received or still to come) that matches. */
  nextUpdate(match: (update: SessionUpdate) => boolean): Promise<SessionUpdate>;
}

/** A permission request the test answers when it chooses: the turn that asks waits for it. */
function permissionGate() {
  let onAsked!: () => void;
  let onAnswer!: (response: RequestPermissionResponse) => void;
  const asked = new Promise<void>((resolve) => (onAsked = resolve));
  const answered = new Promise<RequestPermissionResponse>((resolve) => (onAnswer = resolve));
  return {
    asked,
    answer: (optionId: string) => onAnswer({ outcome: { outcome: "selected", optionId } }),
    handler: () => {
      onAsked();
      return answered;
    },
  };
}

async function start(onPermission?: () => Promise<RequestPermissionResponse>): Promise<Harness> {
  const waiters: Array<{ match: (u: SessionUpdate) => boolean; resolve: (u: SessionUpdate) => void }> = [];
  const pair = suite.connect({
    ...(onPermission ? { onPermission } : {}),
    onUpdate: (notification: SessionNotification) => {
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(notification.update)) waiter.resolve(notification.update);
        else waiters.push(waiter);
      }
    },
  });
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return {
    pair,
    sessionId,
    nextUpdate: (match) => {
      const found = pair.updates.find((n) => match(n.update));
      if (found) return Promise.resolve(found.update);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

const prompt = (h: Harness, text: string) =>
  h.pair.connection.agent.request(methods.agent.session.prompt, { sessionId: h.sessionId, prompt: [{ type: "text", text }] });

const textOf = (update: SessionUpdate): string => ("content" in update && update.content && "text" in update.content ? update.content.text : "");

const isChunk = (text: string) => (u: SessionUpdate) => u.sessionUpdate === "agent_message_chunk" && textOf(u) === text;

/** Sends `text`; answers the stop reason and the updates that arrived while it was answered. */
async function exchange(h: Harness, text: string): Promise<{ stopReason: string; updates: SessionUpdate[] }> {
  const before = h.pair.updates.length;
  const { stopReason } = await prompt(h, text);
  return { stopReason, updates: h.pair.updates.slice(before).map((n) => n.update) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- recorded request bodies are plain JSON
const messagesOf = (index: number): any[] => suite.llm.requests[index]?.body.messages ?? [];

function agentTexts(h: Harness): string[] {
  return h.pair.updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk").map((n) => textOf(n.update));
}

describe("a plain prompt while a turn runs redirects it (Hermes)", () => {
  it("mid-stream: the call is stopped, what it showed is kept, and the next request ends with the correction", async () => {
    const h = await start();
    suite.llm.push({ text: "Editing the README now", chunks: ["Editing", " the README now"], stallAfterChunks: 1 }, { text: "Editing CHANGELOG.md instead." });
    const running = prompt(h, "update the docs");
    await h.nextUpdate(isChunk("Editing"));

    const redirect = await exchange(h, "use CHANGELOG.md, not the README");
    expect(redirect.stopReason).toBe("end_turn");
    expect(redirect.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(textOf)).toContain(REDIRECTED_REPLY);
    expect(redirect.updates.map((u) => u.sessionUpdate)).not.toContain("usage_update");

    expect((await running).stopReason).toBe("end_turn");
    expect(suite.llm.requests).toHaveLength(2);
    const sent = messagesOf(1).slice(1);
    expect(sent.slice(0, 2)).toEqual([
      { role: "user", content: "update the docs" },
      { role: "assistant", content: "Editing" },
    ]);
    const correction = sent.at(-1);
    expect(correction.role).toBe("user");
    expect(correction.content).toContain(REDIRECT_MARKER);
    expect(correction.content).toContain("Visible response before the interruption:\n\nEditing");
    expect(correction.content.endsWith("\n\nuse CHANGELOG.md, not the README")).toBe(true);
    // Not queued: nothing ran after the turn, no echo of the correction.
    expect(h.pair.updates.map((n) => n.update.sessionUpdate)).not.toContain("user_message_chunk");
    expect(agentTexts(h)).toContain("Editing CHANGELOG.md instead.");
    expect(schemaProblems(h.pair.frames)).toEqual([]);

    // Loaded again (a fresh runtime on the same home), the correction shows as the user typed it.
    await h.pair.close();
    const second = suite.connect();
    await second.initialize();
    await second.connection.agent.request(methods.agent.session.load, { sessionId: h.sessionId, cwd: suite.home.workspace, mcpServers: [] });
    const replayed = second.updates
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === "user_message_chunk" || u.sessionUpdate === "agent_message_chunk")
      .map((u) => `${u.sessionUpdate}:${textOf(u)}`);
    expect(replayed).toEqual([
      "user_message_chunk:update the docs",
      "agent_message_chunk:Editing",
      "user_message_chunk:use CHANGELOG.md, not the README",
      "agent_message_chunk:Editing CHANGELOG.md instead.",
    ]);
  });

  it("before the model showed anything: a placeholder keeps the roles alternating", async () => {
    const h = await start();
    suite.llm.push({ text: "never sent", stallAfterChunks: 0 }, { text: "done" });
    const running = prompt(h, "refactor the parser");
    // The call is in flight once the model has it (the agent watches for corrections before sending).
    while (suite.llm.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect((await exchange(h, "keep the public API")).stopReason).toBe("end_turn");
    expect((await running).stopReason).toBe("end_turn");
    expect(messagesOf(1).slice(1)).toEqual([
      { role: "user", content: "refactor the parser" },
      { role: "assistant", content: REDIRECT_PLACEHOLDER },
      { role: "user", content: `[Context from the interrupted assistant response]\n${REDIRECT_MARKER}\n\nkeep the public API` },
    ]);
    expect(agentTexts(h)).toEqual([REDIRECTED_REPLY, "done"]);

    await h.pair.close();
    const second = suite.connect();
    await second.initialize();
    await second.connection.agent.request(methods.agent.session.load, { sessionId: h.sessionId, cwd: suite.home.workspace, mcpServers: [] });
    const replayed = second.updates.map((n) => n.update).map((u) => `${u.sessionUpdate}:${textOf(u)}`).filter((line) => line.includes("message_chunk"));
    expect(replayed).toEqual(["user_message_chunk:refactor the parser", "user_message_chunk:keep the public API", "agent_message_chunk:done"]);
  });

  it("during a tool batch: the tool finishes and the correction joins its result as guidance", async () => {
    const gate = permissionGate();
    const h = await start(gate.handler);
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "notes.txt", content: "x\n" } }] }, { text: "done" });
    const running = prompt(h, "write the notes");
    await gate.asked;

    const redirect = await exchange(h, "call the file NOTES.md");
    expect(redirect.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(textOf)).toEqual([REDIRECTED_REPLY]);
    gate.answer("allow_once");
    expect((await running).stopReason).toBe("end_turn");

    expect(suite.llm.requests).toHaveLength(2);
    const toolResult = messagesOf(1).find((m: { role: string }) => m.role === "tool");
    expect(toolResult.content).toContain("[User guidance for the rest of this turn: call the file NOTES.md]");
    expect(schemaProblems(h.pair.frames)).toEqual([]);
  });

  it("a correction the turn never took (it was cancelled first) is not lost: it runs after the next prompt", async () => {
    const gate = permissionGate();
    const h = await start(gate.handler);
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] });
    const running = prompt(h, "write a");
    await gate.asked;
    expect((await exchange(h, "make it b.txt")).updates.map(textOf)).toContain(REDIRECTED_REPLY);
    await h.pair.connection.agent.notify(methods.agent.session.cancel, { sessionId: h.sessionId });
    expect((await running).stopReason).toBe("cancelled");
    gate.answer("deny");

    suite.llm.push({ text: "first" }, { text: "second" });
    const next = await exchange(h, "go on");
    expect(next.stopReason).toBe("end_turn");
    expect(messagesOf(1).at(-1)).toEqual({ role: "user", content: "write a\n\nUser correction/guidance after interrupt: go on" });
    expect(next.updates.filter((u) => u.sessionUpdate === "user_message_chunk").map(textOf)).toEqual(["make it b.txt"]);
    expect(messagesOf(2).at(-1)).toEqual({ role: "user", content: "make it b.txt" });
  });
});

describe("/queue and Zed's Send now while a turn runs", () => {
  it("/queue queues: answered at once, run after the turn with an echo", async () => {
    const gate = permissionGate();
    const h = await start(gate.handler);
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "change.txt", content: "x\n" } }] }, { text: "changed" }, { text: "tests pass" });
    const running = prompt(h, "make the change");
    await gate.asked;

    const queued = await exchange(h, "/queue then run tests");
    expect(queued.updates.map((u) => u.sessionUpdate)).toEqual(["agent_message_chunk", "usage_update"]);
    expect(textOf(queued.updates[0]!)).toBe("Queued for the next turn. (1 queued)");
    expect(suite.llm.requests).toHaveLength(1);

    gate.answer("allow_once");
    expect((await running).stopReason).toBe("end_turn");
    expect(suite.llm.requests).toHaveLength(3);
    // The queued prompt is not part of the turn: the turn's next request ends with the tool result.
    expect(messagesOf(1).at(-1)).toMatchObject({ role: "tool" });
    expect(JSON.stringify(messagesOf(1))).not.toContain("then run tests");
    expect(messagesOf(2).at(-1)).toEqual({ role: "user", content: "then run tests" });
    const order = h.pair.updates
      .filter((n) => n.update.sessionUpdate === "agent_message_chunk" || n.update.sessionUpdate === "user_message_chunk")
      .map((n) => `${n.update.sessionUpdate}:${textOf(n.update)}`);
    expect(order.slice(-3)).toEqual(["agent_message_chunk:changed", "user_message_chunk:then run tests", "agent_message_chunk:tests pass"]);
    expect(schemaProblems(h.pair.frames)).toEqual([]);
  });

  it("Send now (cancel, then prompt at once): the turn ends cancelled and the prompt runs fresh, carrying the interrupted one", async () => {
    const h = await start();
    suite.llm.push({ text: "Installing with npm", chunks: ["Installing", " with npm"], stallAfterChunks: 1 }, { text: "Using yarn." });
    const running = prompt(h, "install the deps");
    await h.nextUpdate(isChunk("Installing"));

    const before = h.pair.updates.length;
    const cancelled = h.pair.connection.agent.notify(methods.agent.session.cancel, { sessionId: h.sessionId });
    const sent = prompt(h, "use yarn instead");
    await cancelled;
    expect((await running).stopReason).toBe("cancelled");
    expect((await sent).stopReason).toBe("end_turn");

    const texts = h.pair.updates.slice(before).filter((n) => n.update.sessionUpdate === "agent_message_chunk").map((n) => textOf(n.update));
    expect(texts).not.toContain(REDIRECTED_REPLY);
    expect(texts.join("")).not.toContain("Queued for the next turn");
    expect(suite.llm.requests).toHaveLength(2);
    const last = messagesOf(1).at(-1);
    expect(last).toEqual({ role: "user", content: "install the deps\n\nUser correction/guidance after interrupt: use yarn instead" });
    expect(JSON.stringify(messagesOf(1))).not.toContain(REDIRECT_MARKER);
    expect(JSON.stringify(messagesOf(1))).not.toContain(REDIRECT_PLACEHOLDER);
    expect(schemaProblems(h.pair.frames)).toEqual([]);
  });
});

describe("usage_update after every local command (Hermes)", () => {
  it("follows the command's reply, before the answer", async () => {
    const h = await start();
    suite.llm.push({ text: "hello" });
    await prompt(h, "hi");
    for (const command of ["/help", "/status", "/version", "/tools", "/context", "/model", "/steer", "/queue", "/compress", "/reset"]) {
      const frameStart = h.pair.frames.length;
      const { stopReason, updates } = await exchange(h, command);
      expect(stopReason, command).toBe("end_turn");
      const kinds = updates.map((u) => u.sessionUpdate);
      expect(kinds.slice(-2), command).toEqual(["agent_message_chunk", "usage_update"]);
      // On the wire: the reply, then usage_update, then the prompt's response.
      const sent = h.pair.frames.slice(frameStart).filter((f) => f.from === "agent");
      const order = sent.map((f) => {
        const update = (f.message.params as { update?: { sessionUpdate?: string } } | undefined)?.update;
        return update?.sessionUpdate ?? ("result" in f.message ? "response" : String(f.message.method));
      });
      expect(order.slice(-3), command).toEqual(["agent_message_chunk", "usage_update", "response"]);
    }
    expect(schemaProblems(h.pair.frames)).toEqual([]);
  });
  it("a cancel sent right behind a prompt (before the agent has started it) cancels it", async () => {
    const h = await start();
    suite.llm.push({ text: "A long answer", chunks: ["A", " long", " answer"], stallAfterChunks: 1 });
    const sent = prompt(h, "start something");
    const cancelled = h.pair.connection.agent.notify(methods.agent.session.cancel, { sessionId: h.sessionId });
    await cancelled;
    expect((await sent).stopReason).toBe("cancelled");
    expect(schemaProblems(h.pair.frames)).toEqual([]);
  });
});
