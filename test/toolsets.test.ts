import { methods } from "@agentclientprotocol/sdk/unstable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { connectInMemory, type InMemoryAgent } from "./support/in-memory-acp.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/** Toolsets from config.yaml reach the model's tool list and `/tools`, through the real adapter (in memory). */
let llm: FakeLlm;
let home: TempHome;
let agent: InMemoryAgent | undefined;
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

async function openSession(config: string, env: NodeJS.ProcessEnv = home.env()): Promise<string> {
  home.writeConfig(`model:\n  provider: custom\n  base_url: ${llm.baseUrl}\n  default: test-model\n${config}`);
  agent = connectInMemory({ home: home.home, env });
  await agent.initialize();
  const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
  return sessionId;
}

const replyText = (): string =>
  agent!.updates.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : "")).join("");

describe("toolsets from config.yaml", () => {
  it("offers the model only the enabled toolsets minus the disabled ones", async () => {
    const sessionId = await openSession("platform_toolsets:\n  acp: [file, todo]\nagent:\n  disabled_toolsets: [patch]\n");
    llm.push({ text: "ok" });
    await agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const offered = (llm.requests.at(-1)!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(["read_file", "write_file", "search_files", "todo"]);
  });

  it("/tools says which tools are missing here and why, and names unknown toolsets", async () => {
    const sessionId = await openSession("platform_toolsets:\n  acp: [hermes-acp, no-such-set]\n", { ...home.env(), PATH: "/nonexistent" });
    await agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/tools" }] });
    const text = replyText();
    expect(text).toContain("read_file:");
    expect(text).toMatch(/Not available here:\n {2}web_search: needs a search backend: [^\n]+\n {2}terminal: needs bash on PATH\n {2}process: needs bash on PATH/);
    expect(text).toContain("Unknown toolsets in config.yaml (ignored): no-such-set");
  });
});

describe("toolsets on /reset", () => {
  it("are resolved again from config.yaml as it is then", async () => {
    // As on a machine without Chromium, whatever this one has.
    const sessionId = await openSession("", { ...home.env(), CHROME_PATH: "/nonexistent/chrome" });
    home.writeConfig(`model:\n  provider: custom\n  base_url: ${llm.baseUrl}\n  default: test-model\nagent:\n  disabled_toolsets: [terminal, memory]\n`);
    await agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/reset" }] });
    llm.push({ text: "ok" });
    await agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const offered = (llm.requests.at(-1)!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(["web_extract", "read_file", "write_file", "patch", "search_files", "skills_list", "skill_view", "skill_manage", "todo", "session_search", "execute_code", "delegate_task"]);
  });
});
