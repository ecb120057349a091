import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { StateStore } from "../../src/store/state-store.js";
import { spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";

/** Issue 4 end to end: sessions survive restarts, crashes and forks, through the built binary. */
const suite = e2eSuite();

async function startAgent(): Promise<AgentProcess> {
  const agent = spawnAgent({ env: suite.home.env(), onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) });
  suite.agents.push(agent);
  const init = await agent.initialize();
  expect(init.agentCapabilities?.loadSession).toBe(true);
  return agent;
}

async function newSession(agent: AgentProcess, cwd = suite.home.workspace): Promise<string> {
  return (await agent.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
}

function prompt(agent: AgentProcess, sessionId: string, text: string) {
  return agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function updatesFor(agent: AgentProcess, sessionId: string): SessionUpdate[] {
  return agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
}

const strip = (updates: SessionUpdate[]) =>
  updates.map((update) => {
    const { messageId: _ignored, ...rest } = update as SessionUpdate & { messageId?: string };
    return rest;
  });

describe("sessions that survive", () => {
  it("survives a restart: another process lists, loads with a faithful replay, and continues with the full history", async () => {
    writeFileSync(join(suite.home.workspace, "notes.txt"), "alpha\n");
    const a = await startAgent();
    const sessionId = await newSession(a);
    // one exchange with a read, an edit, and an answer
    suite.llm.push(
      { tool_calls: [{ id: "r1", name: "read_file", arguments: { path: "notes.txt" } }] },
      { tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "notes.txt", content: "beta\n" } }] },
      { text: "Rewrote notes.txt to say beta." },
    );
    await prompt(a, sessionId, "Please  rewrite   notes.txt");
    const toolView = (updates: SessionUpdate[]) => updates.filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
    const text = (updates: SessionUpdate[]) =>
      updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("");
    const live = updatesFor(a, sessionId);
    expect(updatesFor(a, sessionId)).toContainEqual(expect.objectContaining({ sessionUpdate: "session_info_update", title: "Please rewrite notes.txt" }));
    await a.close();

    const b = await startAgent();
    const list = await b.connection.agent.request(methods.agent.session.list, {});
    expect(list.sessions).toEqual([expect.objectContaining({ sessionId, cwd: suite.home.workspace, title: "Please rewrite notes.txt" })]);

    const loaded = b.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    const response = await loaded;
    expect(response.modes?.currentModeId).toBe("default");
    const replay = updatesFor(b, sessionId);
    expect(replay[0]).toMatchObject({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "Please  rewrite   notes.txt" } });
    // Tool calls look exactly as they did live (titles, kinds, locations, diffs, statuses).
    const liveTools = toolView(live).filter((u) => u.sessionUpdate === "tool_call" || u.status !== "pending");
    expect(strip(toolView(replay))).toEqual(strip(liveTools));
    expect(JSON.stringify(toolView(replay))).toContain('"type":"diff"');
    expect(text(replay)).toBe(text(live));

    suite.llm.push({ text: "Still beta." });
    await prompt(b, sessionId, "What does it say now?");
    const sent = suite.llm.requests.at(-1)?.body.messages.map((m: { role: string }) => m.role);
    expect(sent).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "user"]);
  });

  it("keeps everything complete when the process is killed mid-turn, and the database stays intact", async () => {
    const a = await startAgent();
    const sessionId = await newSession(a);
    suite.llm.push({ tool_calls: [{ id: "s1", name: "terminal", arguments: { command: "sleep 600" } }] });
    void prompt(a, sessionId, "wait a long time").catch(() => undefined);
    while (!updatesFor(a, sessionId).some((u) => u.sessionUpdate === "tool_call")) await new Promise((r) => setTimeout(r, 10));
    a.child.kill("SIGKILL");
    await a.close();

    const db = createRequire(import.meta.url)("better-sqlite3")(join(suite.home.home, "state.db"), { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();

    const b = await startAgent();
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    const replay = updatesFor(b, sessionId);
    expect(replay[0]).toMatchObject({ sessionUpdate: "user_message_chunk" });
    expect(replay).toContainEqual(expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "s1", title: "terminal: sleep 600" }));
    expect(replay).toContainEqual(expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "s1", status: "failed" }));

    // The conversation continues: the unfinished call has an "interrupted" result, so the model accepts the history.
    suite.llm.push({ text: "It was interrupted." });
    await prompt(b, sessionId, "what happened?");
    const sent = suite.llm.requests.at(-1)?.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(sent[3]).toMatchObject({ tool_call_id: "s1" });
    expect(sent[3]?.content).toContain("Interrupted");
  });

  it("resumes without replay, and an unknown id is -32002", async () => {
    const a = await startAgent();
    const sessionId = await newSession(a);
    suite.llm.push({ text: "hi" });
    await prompt(a, sessionId, "hello");
    await a.close();

    const b = await startAgent();
    await b.connection.agent.request(methods.agent.session.resume, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    expect(updatesFor(b, sessionId)).toEqual([]);
    suite.llm.push({ text: "again" });
    await prompt(b, sessionId, "again?");
    expect(suite.llm.requests.at(-1)?.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]).slice(1)).toEqual([
      ["user", "hello"],
      ["assistant", "hi"],
      ["user", "again?"],
    ]);
    await expect(b.connection.agent.request(methods.agent.session.resume, { sessionId: "nope", cwd: suite.home.workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    await expect(b.connection.agent.request(methods.agent.session.load, { sessionId: "nope", cwd: suite.home.workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
  });

  it("forks: the copy diverges from its parent", async () => {
    const a = await startAgent();
    const parent = await newSession(a);
    suite.llm.push({ text: "parent answer" });
    await prompt(a, parent, "shared start");
    const other = join(suite.home.workspace, "other");
    mkdirSync(other);
    const fork = await a.connection.agent.request(methods.agent.session.fork, { sessionId: parent, cwd: other, mcpServers: [] });
    expect(fork.sessionId).not.toBe(parent);
    suite.llm.push({ text: "fork answer" });
    await prompt(a, fork.sessionId, "only in the fork");

    const store = new StateStore(join(suite.home.home, "state.db"));
    expect(store.getSession(fork.sessionId)).toMatchObject({ parentSessionId: parent, cwd: other });
    expect(store.loadMessages(fork.sessionId).map((m) => m.content)).toEqual(["shared start", "parent answer", "only in the fork", "fork answer"]);
    expect(store.loadMessages(parent).map((m) => m.content)).toEqual(["shared start", "parent answer"]);
    store.close();
  });

  it("writes nothing for a session that is never prompted", async () => {
    const a = await startAgent();
    await newSession(a);
    expect((await a.connection.agent.request(methods.agent.session.list, {})).sessions).toEqual([]);
  });

  it("pages the list by 50 and filters by cwd comparing real paths", async () => {
    const project = join(suite.home.workspace, "project");
    mkdirSync(project);
    const link = join(suite.home.workspace, "link-to-project");
    symlinkSync(project, link);
    const store = new StateStore(join(suite.home.home, "state.db"));
    for (let i = 0; i < 53; i++) {
      const meta = store.createSession({ id: `s-${String(i).padStart(2, "0")}`, cwd: i < 51 ? project : suite.home.workspace, model: "m", provider: "custom" });
      store.appendMessage(meta, { role: "user", content: `message ${i}` });
    }
    store.close();

    const a = await startAgent();
    const first = await a.connection.agent.request(methods.agent.session.list, {});
    expect(first.sessions).toHaveLength(50);
    expect(first.nextCursor).toBeTruthy();
    const second = await a.connection.agent.request(methods.agent.session.list, { cursor: first.nextCursor });
    expect(second.sessions).toHaveLength(3);
    expect(second.nextCursor ?? null).toBeNull();
    const ids = [...first.sessions, ...second.sessions].map((s) => s.sessionId);
    expect(new Set(ids).size).toBe(53);

    const viaLink = await a.connection.agent.request(methods.agent.session.list, { cwd: join(link, "..", "link-to-project") });
    expect(viaLink.sessions).toHaveLength(50);
    const rest = await a.connection.agent.request(methods.agent.session.list, { cwd: link, cursor: viaLink.nextCursor });
    expect(rest.sessions).toHaveLength(1);
    expect((await a.connection.agent.request(methods.agent.session.list, { cursor: "no-such-cursor" })).sessions).toEqual([]);
  });

  it("closes (history kept) and deletes (history gone)", async () => {
    const a = await startAgent();
    const sessionId = await newSession(a);
    suite.llm.push({ text: "hi" });
    await prompt(a, sessionId, "hello");
    await a.connection.agent.request(methods.agent.session.close, { sessionId });
    await expect(prompt(a, sessionId, "after close")).rejects.toMatchObject({ code: -32002 });
    expect((await a.connection.agent.request(methods.agent.session.list, {})).sessions).toHaveLength(1);
    await a.connection.agent.request(methods.agent.session.delete, { sessionId });
    expect((await a.connection.agent.request(methods.agent.session.list, {})).sessions).toEqual([]);
  });

  it("loses no writes when two processes use the same state.db at once", async () => {
    const [a, b] = [await startAgent(), await startAgent()];
    const [sa, sb] = [await newSession(a), await newSession(b)];
    for (let i = 0; i < 10; i++) suite.llm.push({ text: `answer ${i}` });
    await Promise.all([
      (async () => {
        for (let i = 0; i < 5; i++) await prompt(a, sa, `a${i}`);
      })(),
      (async () => {
        for (let i = 0; i < 5; i++) await prompt(b, sb, `b${i}`);
      })(),
    ]);
    const store = new StateStore(join(suite.home.home, "state.db"));
    expect(store.loadMessages(sa)).toHaveLength(10);
    expect(store.loadMessages(sb)).toHaveLength(10);
    store.close();
  });

  it("finds with session_search a word said three sessions ago", async () => {
    const a = await startAgent();
    const topics = ["the flamingo migration plan", "lunch options nearby", "renaming the build script"];
    const ids: string[] = [];
    for (const topic of topics) {
      const id = await newSession(a);
      ids.push(id);
      suite.llm.push({ text: `Noted: ${topic}.` });
      await prompt(a, id, `Let us talk about ${topic}`);
    }
    const current = await newSession(a);
    suite.llm.push({ tool_calls: [{ id: "q1", name: "session_search", arguments: { query: "flamingo" } }] }, { text: "Found it." });
    await prompt(a, current, "What did we say about flamingos?");
    const result = suite.llm.requests.at(-1)?.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(result.content).toContain(ids[0]);
    expect(result.content).not.toContain(ids[1]);
    const view = updatesFor(a, current).find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "q1");
    expect(view).toMatchObject({ title: "session search: flamingo" });
  });
});
