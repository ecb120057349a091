import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { sleepers } from "../support/processes.js";

/** Issue 3 end to end: tools, approvals and what the editor sees, over stdio with the built binary. */
const suite = e2eSuite();

const choose = (optionId: string) => (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

async function start(onPermission?: (request: RequestPermissionRequest) => RequestPermissionResponse): Promise<{ agent: AgentProcess; sessionId: string }> {
  suite.agent = spawnAgent({ env: suite.home.env(), ...(onPermission ? { onPermission } : {}) });
  await suite.agent.initialize();
  const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { agent: suite.agent, sessionId };
}

function prompt(sessionId: string, text: string) {
  return suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function updates(kind: SessionUpdate["sessionUpdate"]): SessionUpdate[] {
  return suite.agent!.updates.map((notification) => notification.update).filter((update) => update.sessionUpdate === kind);
}

function toolUpdates(callId: string): SessionUpdate[] {
  return suite.agent!.updates.map((n) => n.update).filter((u) => "toolCallId" in u && u.toolCallId === callId);
}

describe("edits", () => {
  it("patches a file after the client approves the diff", async () => {
    const file = join(suite.home.workspace, "app.ts");
    writeFileSync(file, "const greeting = 'hello';\n");
    const { sessionId } = await start(choose("allow_once"));
    suite.llm.push(
      { tool_calls: [{ id: "p1", name: "patch", arguments: { path: "app.ts", old_string: "'hello'", new_string: "'goodbye'" } }] },
      { text: "Changed." },
    );
    expect((await prompt(sessionId, "change the greeting")).stopReason).toBe("end_turn");

    expect(readFileSync(file, "utf8")).toBe("const greeting = 'goodbye';\n");
    const [request] = suite.agent!.permissions;
    expect(request?.toolCall.toolCallId).toBe("p1");
    expect(request?.toolCall.content).toContainEqual({ type: "diff", path: file, oldText: "const greeting = 'hello';\n", newText: "const greeting = 'goodbye';\n" });
    expect(request?.options.map((option) => option.optionId)).toEqual(["allow_once", "deny"]);
    const done = toolUpdates("p1").at(-1);
    expect(done).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
    expect(JSON.stringify(done)).toContain('"type":"diff"');
  });

  it("leaves the file untouched when the client denies the edit", async () => {
    const file = join(suite.home.workspace, "app.ts");
    writeFileSync(file, "keep me\n");
    const { sessionId } = await start(choose("deny"));
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "app.ts", content: "overwritten\n" } }] }, { text: "ok" });
    await prompt(sessionId, "overwrite it");
    expect(readFileSync(file, "utf8")).toBe("keep me\n");
    expect(toolUpdates("w1").at(-1)).toMatchObject({ status: "failed" });
    const toolResult = suite.llm.requests[1]?.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(toolResult.content.toLowerCase()).toContain("denied");
  });

  it("writes inside the workspace without asking in accept_edits mode, but asks for .env", async () => {
    const { sessionId } = await start(choose("deny"));
    await suite.agent!.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "accept_edits" });
    suite.llm.push(
      {
        tool_calls: [
          { id: "w1", name: "write_file", arguments: { path: "src/new.ts", content: "export {};\n" } },
          { id: "w2", name: "write_file", arguments: { path: ".env", content: "SECRET=1\n" } },
        ],
      },
      { text: "done" },
    );
    await prompt(sessionId, "write two files");
    expect(readFileSync(join(suite.home.workspace, "src/new.ts"), "utf8")).toBe("export {};\n");
    expect(existsSync(join(suite.home.workspace, ".env"))).toBe(false);
    expect(suite.agent!.permissions.map((request) => request.toolCall.toolCallId)).toEqual(["w2"]);
  });
});

describe("dangerous commands", () => {
  it("asks before rm -rf with the exact command, and 'allow for session' is not asked again for it", async () => {
    mkdirSync(join(suite.home.workspace, "build"));
    mkdirSync(join(suite.home.workspace, "dist"));
    const { sessionId } = await start(choose("allow_session"));
    suite.llm.push(
      { tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build dist" } }] },
      { tool_calls: [{ id: "t2", name: "terminal", arguments: { command: "rm -rf build dist" } }] },
      { text: "cleaned" },
    );
    await prompt(sessionId, "clean up");
    expect(suite.agent!.permissions).toHaveLength(1);
    const request = suite.agent!.permissions[0]!;
    expect(request.toolCall.toolCallId).toBe("t1");
    expect(request.toolCall.rawInput).toMatchObject({ command: "rm -rf build dist" });
    expect(JSON.stringify(request.toolCall.content)).toContain("$ rm -rf build dist");
    expect(request.toolCall.title).toContain("rm -rf build dist");
    expect(request.options.map((option) => option.optionId)).toEqual(["allow_once", "allow_session", "allow_always", "deny", "deny_always"]);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(false);
    expect(existsSync(join(suite.home.workspace, "dist"))).toBe(false);
  });

  it("denies a dangerous command when the client cancels the request", async () => {
    mkdirSync(join(suite.home.workspace, "build"));
    const { sessionId } = await start();
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] }, { text: "ok" });
    await prompt(sessionId, "clean");
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(true);
    expect(toolUpdates("t1").at(-1)).toMatchObject({ status: "failed" });
  });
});

describe("tool calls in the editor", () => {
  it("completes two read_file calls of one message onto their own tool calls", async () => {
    writeFileSync(join(suite.home.workspace, "a.txt"), "alpha\n");
    writeFileSync(join(suite.home.workspace, "b.txt"), "beta\n");
    const { sessionId } = await start();
    suite.llm.push(
      {
        tool_calls: [
          { id: "ra", name: "read_file", arguments: { path: "a.txt" } },
          { id: "rb", name: "read_file", arguments: { path: "b.txt" } },
        ],
      },
      { text: "read both" },
    );
    await prompt(sessionId, "read a and b");
    expect(JSON.stringify(toolUpdates("ra").at(-1))).toContain("1|alpha");
    expect(JSON.stringify(toolUpdates("rb").at(-1))).toContain("1|beta");
    expect(toolUpdates("ra").at(-1)).toMatchObject({ status: "completed" });
    expect(toolUpdates("rb").at(-1)).toMatchObject({ status: "completed" });
  });

  it("sends a plan update after a todo call", async () => {
    const { sessionId } = await start();
    suite.llm.push(
      {
        tool_calls: [
          {
            id: "td",
            name: "todo",
            arguments: { todos: [{ id: "1", content: "write code", status: "in_progress" }, { id: "2", content: "drop idea", status: "cancelled" }] },
          },
        ],
      },
      { text: "planned" },
    );
    await prompt(sessionId, "plan it");
    expect(updates("plan").at(-1)).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "write code", status: "in_progress", priority: "medium" },
        { content: "[cancelled] drop idea", status: "completed", priority: "medium" },
      ],
    });
  });

  it("cancels a running `sleep` promptly and leaves no process behind", async () => {
    const { sessionId } = await start();
    const marker = `${3000 + Math.floor(Math.random() * 900)}.${Math.floor(Math.random() * 1e6)}`;
    suite.llm.push({ tool_calls: [{ id: "s1", name: "terminal", arguments: { command: `sleep ${marker}` } }] }, { text: "after" });
    const running = prompt(sessionId, "sleep");
    while (!sleepers(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    await suite.agent!.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    // The process group is killed before the turn ends; allow the kernel a moment to reap it.
    while (sleepers(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sleepers(marker)).toEqual([]);
    expect(toolUpdates("s1").at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", status: "failed" });
  });
});
