import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { startFakeLlm, type FakeLlm } from "../support/fake-llm.js";
import { createTempHome, type TempHome } from "../support/temp-home.js";

/** Issue 10: a conversation that cannot be saved says so in the turn, and what is stored stays as it was. */
let llm: FakeLlm;
let home: TempHome;
let agent: AgentProcess | undefined;

beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome({ baseUrl: llm.baseUrl });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await llm.close();
  home.cleanup();
});

describe("a state.db that cannot be written", () => {
  it("answers the prompt, tells the user the conversation is not saved and why, and leaves the file untouched", async () => {
    const garbage = "this is not a database\n".repeat(100);
    writeFileSync(join(home.home, "state.db"), garbage);
    agent = spawnAgent({ env: home.env() });
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    llm.push({ text: "hello there" }, { text: "second answer" });
    const first = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(first.stopReason).toBe("end_turn");
    const texts = agent.updates
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
      .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""));
    expect(texts.join("")).toContain("hello there");
    const warnings = texts.filter((text) => text.includes("not being saved"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not a SQLite database|cannot open/);
    // Told once per run of failures, not on every turn.
    await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
    const after = agent.updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk" && JSON.stringify(n.update).includes("not being saved"));
    expect(after).toHaveLength(1);
    expect(readFileSync(join(home.home, "state.db"), "utf8")).toBe(garbage);
  });
});

describe("a broken config.yaml", () => {
  it("still lists the stored sessions (listing needs no model)", async () => {
    agent = spawnAgent({ env: home.env() });
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    llm.push({ text: "stored answer" });
    await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "remember me" }] });
    await agent.close();
    home.writeConfig("model: [unclosed\n");
    agent = spawnAgent({ env: home.env() });
    await agent.initialize();
    const listed = await agent.connection.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.map((session) => session.sessionId)).toContain(sessionId);
  });
});
