import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type McpServer, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { STDIO_SERVER, startHttpMcpServer } from "../support/mcp-server.mjs";

/** Issue 6, MCP servers, end to end with the built binary and a tiny MCP server written with the SDK. */
const suite = e2eSuite();

const [NODE, SERVER_SCRIPT] = STDIO_SERVER;

function demoServer(name = "demo", env: Record<string, string> = {}): McpServer {
  return { name, command: NODE, args: [SERVER_SCRIPT], env: Object.entries(env).map(([key, value]) => ({ name: key, value })) };
}

async function start(): Promise<AgentProcess> {
  suite.agent = spawnAgent({ env: suite.home.env() });
  await suite.agent.initialize();
  return suite.agent;
}

function newSession(mcpServers: McpServer[]) {
  return suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers });
}

function prompt(sessionId: string, text: string) {
  return suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function toolUpdates(callId: string): SessionUpdate[] {
  return suite.agent!.updates.map((n) => n.update).filter((u) => "toolCallId" in u && u.toolCallId === callId);
}

function toolNamesSent(requestIndex: number): string[] {
  return (suite.llm.requests[requestIndex]?.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
}

function toolResultSent(requestIndex: number, callId: string): string | undefined {
  return suite.llm.requests[requestIndex]?.body.messages.find((m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === callId)?.content;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid the stdio demo server wrote at start-up (it writes it before it answers anything). */
function pidIn(file: string): number {
  return Number(readFileSync(file, "utf8"));
}

describe("MCP servers from the editor", () => {
  it("advertises http and sse MCP support", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    const init = await suite.agent.initialize();
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
  });

  it("runs a stdio server's tool the model calls; the result reaches the model and the editor; close stops the child", async () => {
    await start();
    const pidFile = join(suite.home.home, "demo.pid");
    const { sessionId } = await newSession([demoServer("demo", { MCP_DEMO_PID_FILE: pidFile })]);
    suite.llm.push({ tool_calls: [{ id: "m1", name: "mcp__demo__echo", arguments: { text: "hello" } }] }, { text: "The server said hello." });
    expect((await prompt(sessionId, "echo hello through the demo server")).stopReason).toBe("end_turn");

    expect(toolNamesSent(0)).toEqual(expect.arrayContaining(["mcp__demo__echo", "mcp__demo__add"]));
    const echoSchema = suite.llm.requests[0]?.body.tools.find((tool: { function: { name: string } }) => tool.function.name === "mcp__demo__echo");
    expect(echoSchema.function).toMatchObject({ description: "Echoes the text back", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } });
    expect(toolResultSent(1, "m1")).toBe("echo: hello");

    const [start_, ...rest] = toolUpdates("m1");
    expect(start_).toMatchObject({ sessionUpdate: "tool_call", kind: "other", title: "mcp__demo__echo", rawInput: { text: "hello" }, status: "in_progress" });
    expect(rest.at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed", content: [{ type: "content", content: { type: "text", text: "echo: hello" } }] });

    const pid = pidIn(pidFile);
    expect(isAlive(pid)).toBe(true);
    await suite.agent!.connection.agent.request(methods.agent.session.close, { sessionId });
    expect(isAlive(pid)).toBe(false);
  });

  it("reports a failing MCP tool as a failed tool call the model can read", async () => {
    await start();
    const { sessionId } = await newSession([demoServer()]);
    suite.llm.push({ tool_calls: [{ id: "f1", name: "mcp__demo__fail", arguments: {} }] }, { text: "It failed." });
    await prompt(sessionId, "try the failing tool");
    expect(toolResultSent(1, "f1")).toBe("boom: the demo tool failed");
    expect(toolUpdates("f1").at(-1)).toMatchObject({ status: "failed" });
  });

  it("runs an http server's tool with the editor's headers", async () => {
    const server = await startHttpMcpServer();
    try {
      await start();
      const { sessionId } = await newSession([{ type: "http", name: "remote", url: server.url, headers: [{ name: "Authorization", value: "Bearer e2e-remote-secret" }] }]);
      suite.llm.push({ tool_calls: [{ id: "h1", name: "mcp__remote__add", arguments: { a: 2, b: 40 } }] }, { text: "42" });
      expect((await prompt(sessionId, "add 2 and 40")).stopReason).toBe("end_turn");
      expect(toolResultSent(1, "h1")).toBe("42");
      expect(server.calls).toEqual([{ name: "add", args: { a: 2, b: 40 } }]);
      expect(server.headers.every((request) => request.headers.authorization === "Bearer e2e-remote-secret")).toBe(true);
      expect(toolUpdates("h1")[0]).toMatchObject({ kind: "other", rawInput: { a: 2, b: 40 } });
    } finally {
      await suite.agent?.close();
      suite.agent = undefined;
      await server.close();
    }
  });

  it("rejects duplicate server names with -32602 naming the duplicate, leaking nothing and starting nothing", async () => {
    await start();
    const pidFile = join(suite.home.home, "never.pid");
    const secrets = ["/opt/secret-path/bin", "--secret-arg", "env-secret-value-0001", "http://127.0.0.1:9/secret-path", "header-secret-value-0002"];
    const servers: McpServer[] = [
      { name: "demo", command: NODE, args: [SERVER_SCRIPT, "--secret-arg"], env: [{ name: "MCP_DEMO_PID_FILE", value: pidFile }, { name: "API_KEY", value: "env-secret-value-0001" }] },
      { type: "http", name: "demo", url: "http://127.0.0.1:9/secret-path", headers: [{ name: "Authorization", value: "header-secret-value-0002" }] },
      { name: "other", command: "/opt/secret-path/bin", args: [], env: [] },
    ];
    await expect(newSession(servers)).rejects.toMatchObject({ code: -32602, data: { serverName: "demo" } });

    // The same rule on load, resume and fork, checked before the session is even looked up.
    const { sessionId } = await newSession([]);
    for (const method of [methods.agent.session.load, methods.agent.session.resume, methods.agent.session.fork] as const) {
      await expect(suite.agent!.connection.agent.request(method, { sessionId, cwd: suite.home.workspace, mcpServers: servers })).rejects.toMatchObject({ code: -32602, data: { serverName: "demo" } });
    }
    const wire = suite.agent!.stdoutLines().join("\n") + suite.agent!.stderr();
    for (const secret of secrets) expect(wire).not.toContain(secret);
    expect(existsSync(pidFile)).toBe(false);
    expect(suite.agent!.stderr().match(/session \S+ created/g)).toHaveLength(1);
  });

  it("keeps a session whose servers fail to start, and logs why", async () => {
    await start();
    const { sessionId } = await newSession([
      { name: "missing", command: join(suite.home.workspace, "no-such-mcp-server"), args: [], env: [] },
      demoServer("crashy", { MCP_DEMO_CRASH: "1" }),
      { type: "http", name: "unreachable", url: "http://127.0.0.1:9/mcp", headers: [] },
    ]);
    suite.llm.push({ text: "Still here." });
    expect((await prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    expect(toolNamesSent(0).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    const stderr = suite.agent!.stderr();
    expect(stderr).toContain('stdio MCP server "missing" failed to start');
    expect(stderr).toContain('stdio MCP server "crashy" failed to start');
    expect(stderr).toContain("refusing to start");
    expect(stderr).toContain('http MCP server "unreachable" failed to start');
  });

  it("stops a session's child on session/delete and every child when the agent exits", async () => {
    await start();
    const deletedPid = join(suite.home.home, "deleted.pid");
    const livePid = join(suite.home.home, "live.pid");
    const deleted = await newSession([demoServer("demo", { MCP_DEMO_PID_FILE: deletedPid })]);
    const live = await newSession([demoServer("demo", { MCP_DEMO_PID_FILE: livePid })]);
    suite.llm.push({ text: "one" }, { text: "two" });
    await prompt(deleted.sessionId, "start");
    await prompt(live.sessionId, "start");
    const [a, b] = [pidIn(deletedPid), pidIn(livePid)];
    expect(isAlive(a) && isAlive(b)).toBe(true);

    await suite.agent!.connection.agent.request(methods.agent.session.delete, { sessionId: deleted.sessionId });
    expect(isAlive(a)).toBe(false);
    expect(isAlive(b)).toBe(true);
    await suite.agent!.close();
    suite.agent = undefined;
    expect(isAlive(b)).toBe(false);
  });

  it("stops its children when the agent is terminated", async () => {
    await start();
    const pidFile = join(suite.home.home, "terminated.pid");
    const { sessionId } = await newSession([demoServer("demo", { MCP_DEMO_PID_FILE: pidFile })]);
    suite.llm.push({ text: "ok" });
    await prompt(sessionId, "start");
    const pid = pidIn(pidFile);
    const exited = new Promise((resolve) => suite.agent!.child.once("exit", resolve));
    suite.agent!.child.kill("SIGTERM");
    await exited;
    suite.agent = undefined;
    // Bounded: the server gets 10 s to be gone (it should be at once: its process group is killed).
    for (let waited = 0; isAlive(pid) && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(pid)).toBe(false);
  });

  it("connects the servers passed to session/load (in a new process) and session/fork", async () => {
    await start();
    const { sessionId } = await newSession([]);
    suite.llm.push({ text: "first" });
    await prompt(sessionId, "remember me");
    await suite.agent!.close();

    await start();
    await suite.agent!.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [demoServer("loaded")] });
    suite.llm.push({ tool_calls: [{ id: "l1", name: "mcp__loaded__echo", arguments: { text: "after load" } }] }, { text: "done" });
    await prompt(sessionId, "echo after load");
    expect(toolResultSent(2, "l1")).toBe("echo: after load");

    const fork = await suite.agent!.connection.agent.request(methods.agent.session.fork, { sessionId, cwd: suite.home.workspace, mcpServers: [demoServer("forked")] });
    suite.llm.push({ tool_calls: [{ id: "k1", name: "mcp__forked__add", arguments: { a: 1, b: 1 } }] }, { text: "2" });
    await prompt(fork.sessionId, "add in the fork");
    expect(toolNamesSent(3).filter((name) => name.startsWith("mcp__")).every((name) => name.startsWith("mcp__forked__"))).toBe(true);
    expect(toolResultSent(4, "k1")).toBe("2");
  });
});

describe("MCP servers from config.yaml", () => {
  it("connects servers in Hermes' format for every session, and gives their tools to the model", async () => {
    suite.home.writeConfig(
      [
        "model:",
        "  provider: custom",
        `  base_url: ${suite.llm.baseUrl}`,
        "  default: test-model",
        "mcp_servers:",
        "  configured:",
        `    command: ${JSON.stringify(NODE)}`,
        `    args: [${JSON.stringify(SERVER_SCRIPT)}]`,
        "    env: { DEMO_GREETING: from-config }",
        "    tools: { include: [where, echo] }",
        "",
      ].join("\n"),
    );
    await start();
    const { sessionId } = await newSession([]);
    suite.llm.push({ tool_calls: [{ id: "w1", name: "mcp__configured__where", arguments: {} }] }, { text: "done" });
    await prompt(sessionId, "where are you?");
    expect(toolNamesSent(0).filter((name) => name.startsWith("mcp__")).sort()).toEqual(["mcp__configured__echo", "mcp__configured__where"]);
    const where = JSON.parse(toolResultSent(1, "w1") ?? "{}") as { cwd: string; greeting: string };
    expect(where.greeting).toBe("from-config");
    expect(where.cwd).toBe(suite.home.workspace);
  });
});
