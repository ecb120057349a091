import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type RequestPermissionRequest, type RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { beforeEach, describe, expect, it } from "vitest";
import { spawnAgent } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { sleepCommands, sleepers } from "../support/processes.js";
import { sandboxUsable } from "../support/sandbox.js";

/** Issue 9 end to end: the built binary confines commands with real bubblewrap, over stdio. */
const usable = await sandboxUsable();

const suite = e2eSuite();
let fakeHome: string;

beforeEach(() => {
  fakeHome = join(suite.home.home, "..", "user-home");
  mkdirSync(join(fakeHome, "documents"), { recursive: true });
  writeFileSync(join(fakeHome, "documents", "thesis.txt"), "years of work\n");
});


const choose = (optionId: string) => (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

async function start(options: { onPermission?: (request: RequestPermissionRequest) => RequestPermissionResponse; env?: Record<string, string>; terminals?: boolean } = {}) {
  suite.agent = spawnAgent({
    env: suite.home.env({ HOME: fakeHome, ...options.env }),
    ...(options.onPermission ? { onPermission: options.onPermission } : {}),
    ...(options.terminals ? { clientCapabilities: { terminal: true }, terminals: true } : {}),
  });
  await suite.agent.initialize();
  const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return sessionId;
}

function prompt(sessionId: string, text: string) {
  return suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function toolResult(request: number, callId: string): { output: string; exit_code: number; error?: string } {
  const message = suite.llm.requests[request]?.body.messages.find((m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === callId);
  return JSON.parse(message.content);
}

describe.runIf(usable)("the sandbox, end to end", () => {
  it("with approvals off, rm -rf ~ and a config.yaml rewrite leave the home and the settings intact", async () => {
    suite.home.writeConfig(`${readFileSync(join(suite.home.home, "config.yaml"), "utf8")}approvals:\n  mode: "off"\n`);
    const sessionId = await start();
    suite.llm.push(
      { tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "export R=rm" } }] },
      { tool_calls: [{ id: "t2", name: "terminal", arguments: { command: "$R -rf ~ 2>&1 | tail -1" } }] },
      { tool_calls: [{ id: "t3", name: "terminal", arguments: { command: `echo 'sandbox: {mode: "off"}' >> ${join(suite.home.home, "config.yaml")}` } }] },
      { text: "done" },
    );
    expect((await prompt(sessionId, "clean everything")).stopReason).toBe("end_turn");
    expect(readFileSync(join(fakeHome, "documents", "thesis.txt"), "utf8")).toBe("years of work\n");
    expect(readFileSync(join(suite.home.home, "config.yaml"), "utf8")).not.toContain('sandbox: {mode: "off"}');
    expect(toolResult(3, "t3").output).toContain("Read-only file system");
  });

  it("approval settings are fixed when the session starts: loosening config.yaml mid-session changes nothing", async () => {
    mkdirSync(join(suite.home.workspace, "build"));
    const sessionId = await start();
    suite.home.writeConfig(`${readFileSync(join(suite.home.home, "config.yaml"), "utf8")}approvals:\n  mode: "off"\ncommand_allowlist: ["rm -rf build"]\n`);
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] }, { text: "ok" });
    await prompt(sessionId, "clean");
    expect(suite.agent!.permissions).toHaveLength(1);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(true);
  });

  it("'allow for session' covers the command the user saw, not the rule: rm -rf ../sibling still asks", async () => {
    mkdirSync(join(suite.home.workspace, "build"));
    const sessionId = await start({ onPermission: choose("allow_session") });
    suite.llm.push(
      { tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] },
      { tool_calls: [{ id: "t2", name: "terminal", arguments: { command: "mkdir build && rm -rf  build" } }] },
      { tool_calls: [{ id: "t3", name: "terminal", arguments: { command: "rm -rf ../sibling" } }] },
      { text: "ok" },
    );
    await prompt(sessionId, "clean");
    const asked = suite.agent!.permissions.map((request) => request.toolCall.toolCallId);
    expect(asked).toContain("t1");
    expect(asked).toContain("t3");
    const label = suite.agent!.permissions[0]!.options.find((option) => option.optionId === "allow_session")!.name;
    expect(label).toContain("rm -rf build");
  });

  it("an escalation asks with 'outside the sandbox' and the reason, offering only once or deny", async () => {
    const sessionId = await start({ onPermission: choose("allow_once") });
    const target = join(fakeHome, "escalated.txt");
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: `touch ${target}`, sandbox: "off", reason: "the user asked for a file in the home" } }] }, { text: "ok" });
    await prompt(sessionId, "make a file in my home");
    const request = suite.agent!.permissions[0]!;
    expect(request.toolCall.title).toContain("outside the sandbox");
    expect(JSON.stringify(request.toolCall.content)).toContain("the user asked for a file in the home");
    expect(request.options.map((option) => option.optionId)).toEqual(["allow_once", "deny"]);
    expect(existsSync(target)).toBe(true);
  });

  it("in plan mode runs read-only commands and refuses writes", async () => {
    writeFileSync(join(suite.home.workspace, "notes.txt"), "plan me\n");
    const sessionId = await start();
    await suite.agent!.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" });
    suite.llm.push(
      { tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "cat notes.txt" } }] },
      { tool_calls: [{ id: "t2", name: "terminal", arguments: { command: "touch made-in-plan" } }] },
      { text: "here is the plan" },
    );
    await prompt(sessionId, "plan it");
    expect(toolResult(1, "t1").output).toBe("plan me");
    expect(toolResult(2, "t2").exit_code).not.toBe(0);
    expect(existsSync(join(suite.home.workspace, "made-in-plan"))).toBe(false);
  });

  it("a SIGKILLed agent leaves no command running", async () => {
    const marker = `${5000 + Math.floor(Math.random() * 900)}.${Math.floor(Math.random() * 1e6)}`;
    const sessionId = await start();
    suite.llm.push({ tool_calls: [{ id: "s1", name: "terminal", arguments: { command: `sleep ${marker}` } }] }, { text: "after" });
    void prompt(sessionId, "sleep").catch(() => undefined);
    while (!sleepCommands(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    suite.agent!.child.kill("SIGKILL");
    while (sleepers(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sleepers(marker)).toEqual([]);
  });

  it("confines the command it asks the editor's terminal to run", async () => {
    const sessionId = await start({ terminals: true });
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "echo in-editor; touch ~/from-editor-terminal" } }] }, { text: "ran" });
    await prompt(sessionId, "run it");
    const created = suite.agent!.terminals!.created[0]!;
    expect(created.args?.some((arg) => arg.endsWith("/bwrap"))).toBe(true);
    expect(toolResult(1, "t1").output).toContain("in-editor");
    expect(existsSync(join(fakeHome, "from-editor-terminal"))).toBe(false);
  });
});

describe("without a sandbox on the machine", () => {
  it("says so once, where the user sees it, then runs with approvals only; sandbox.required refuses", async () => {
    const bin = join(suite.home.home, "..", "bin-without-bwrap");
    mkdirSync(bin);
    for (const tool of ["bash", "touch", "cat"]) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const sessionId = await start({ env: { PATH: bin } });
    suite.llm.push(
      { tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "echo one" } }] },
      { tool_calls: [{ id: "t2", name: "terminal", arguments: { command: "echo two" } }] },
      { text: "done" },
    );
    await prompt(sessionId, "run twice");
    const notices = suite.agent!.updates
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text.includes("without a sandbox"));
    expect(notices).toHaveLength(1);
    expect(toolResult(1, "t1").output).toBe("one");

    await suite.agent!.close();
    suite.home.writeConfig(`${readFileSync(join(suite.home.home, "config.yaml"), "utf8")}sandbox:\n  required: true\n`);
    const second = await start({ env: { PATH: bin } });
    suite.llm.push({ tool_calls: [{ id: "t3", name: "terminal", arguments: { command: `touch ${join(suite.home.workspace, "made")}` } }] }, { text: "done" });
    await prompt(second, "run");
    expect(existsSync(join(suite.home.workspace, "made"))).toBe(false);
    expect(toolResult(suite.llm.requests.length - 1, "t3").error).toContain("sandbox.required");
  });
});
