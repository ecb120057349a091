import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
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
