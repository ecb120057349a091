import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { loadSqlite } from "../../src/store/sqlite.js";
import { BUILT_BINARY, spawnAgent } from "../support/acp-client.js";
import { sandboxUsable } from "../support/sandbox.js";
import { e2eSuite } from "../support/e2e-suite.js";

/** Issue 10: a conversation that cannot be saved says so in the turn, and what is stored stays as it was. */
const suite = e2eSuite();

describe("a state.db that cannot be written", () => {
  it("answers the prompt, tells the user the conversation is not saved and why, and leaves the file untouched", async () => {
    const garbage = "this is not a database\n".repeat(100);
    writeFileSync(join(suite.home.home, "state.db"), garbage);
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "hello there" }, { text: "second answer" });
    const first = await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(first.stopReason).toBe("end_turn");
    const texts = suite.agent.updates
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
      .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""));
    expect(texts.join("")).toContain("hello there");
    const warnings = texts.filter((text) => text.includes("not being saved"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not a SQLite database|cannot open/);
    // Told once per run of failures, not on every turn.
    await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
    const after = suite.agent.updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk" && JSON.stringify(n.update).includes("not being saved"));
    expect(after).toHaveLength(1);
    expect(readFileSync(join(suite.home.home, "state.db"), "utf8")).toBe(garbage);
  });
});

describe("a broken config.yaml", () => {
  it("still lists the stored sessions (listing needs no model)", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "stored answer" });
    await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "remember me" }] });
    await suite.agent.close();
    suite.home.writeConfig("model: [unclosed\n");
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const listed = await suite.agent.connection.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.map((session) => session.sessionId)).toContain(sessionId);
    // Loading replays the stored history; the broken file is named where a model is needed.
    await suite.agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    expect(JSON.stringify(suite.agent.updates)).toContain("remember me");
    const turn = suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/help" }] });
    await expect(turn).resolves.toMatchObject({ stopReason: "end_turn" });
    const prompt = suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "a real question" }] });
    await expect(prompt).rejects.toThrow(/config\.yaml/);
    // Once the file is fixed, the same session answers (its model is resolved then).
    suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n`);
    suite.llm.push({ text: "config is fine again" });
    await expect(suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "and now?" }] })).resolves.toMatchObject({ stopReason: "end_turn" });
    const said = suite.agent.updates.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : "")).join("");
    expect(said).toContain("config is fine again");
    const cli = spawnSync(process.execPath, [BUILT_BINARY, "sessions", "list"], { env: suite.home.env(), encoding: "utf8" });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain(sessionId);
  });
});

describe.runIf(await sandboxUsable())("a read-only HERMES_HOME (a real read-only bind mount)", () => {
  it("lists and loads the stored history, answers new prompts, and says they are not saved", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "stored answer" });
    await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "remember the quokka" }] });
    await suite.agent.close();
    const readOnly = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", suite.home.home, suite.home.home, "--"];
    suite.agent = spawnAgent({ env: suite.home.env(), command: [...readOnly, process.execPath, BUILT_BINARY, "acp"] });
    await suite.agent.initialize();
    const listed = await suite.agent.connection.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.map((session) => session.sessionId)).toContain(sessionId);
    await suite.agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    expect(JSON.stringify(suite.agent.updates)).toContain("remember the quokka");
    suite.llm.push({ text: "fresh answer" });
    const turn = await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "and now?" }] });
    expect(turn.stopReason).toBe("end_turn");
    const text = JSON.stringify(suite.agent.updates);
    expect(text).toContain("fresh answer");
    expect(text).toMatch(/not being saved to state.db: [^"]*read-only/);
  });
});

describe("a state.db whose search index is damaged", () => {
  it("tells the user why the turn is not saved and how to repair it; `hermes sessions repair` makes it whole again", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "stored answer about the quokka" });
    await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "remember the quokka" }] });
    await suite.agent.close();
    const dbPath = join(suite.home.home, "state.db");
    const db = new (loadSqlite())(dbPath);
    (db as unknown as { unsafeMode(on: boolean): void }).unsafeMode(true); // lifts the defensive mode that protects FTS5's own tables
    db.prepare("UPDATE messages_fts_data SET block = randomblob(length(block)) + x'00'").run();
    db.close();

    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    await suite.agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "answer while damaged" });
    const turn = await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "another quokka question" }] });
    expect(turn.stopReason).toBe("end_turn");
    const said = suite.agent.updates.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : "")).join("");
    expect(said).toContain("answer while damaged");
    expect(said).toMatch(/not being saved to state.db: .*(corrupt|malformed).*hermes sessions repair/);
    await suite.agent.close();

    const repair = spawnSync(process.execPath, [BUILT_BINARY, "sessions", "repair"], { env: suite.home.env(), encoding: "utf8" });
    expect(repair.stderr).toBe("");
    expect(repair.stdout).toMatch(/search index was damaged[\s\S]*The database is sound/);
    expect(repair.status).toBe(0);
    const search = spawnSync(process.execPath, [BUILT_BINARY, "sessions", "search", "quokka", "--json"], { env: suite.home.env(), encoding: "utf8" });
    expect(JSON.parse(search.stdout).hits.map((hit: { sessionId: string }) => hit.sessionId)).toEqual([sessionId]);
  });
});
