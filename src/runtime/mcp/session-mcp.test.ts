import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { STDIO_SERVER, startHttpMcpServer, type HttpMcpServer } from "../../../test/support/mcp-server.mjs";
import { redactSecrets } from "../../config/redact.js";
import { log } from "../../shared/logger.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { McpConnection } from "./connection.js";
import type { McpServerSpec } from "./server-spec.js";
import { SessionMcp } from "./session-mcp.js";

const settings = { source: "editor" as const, timeoutMs: 30_000, connectTimeoutMs: 30_000 };
const demo = (env: Record<string, string> = {}, name = "demo"): Extract<McpServerSpec, { transport: "stdio" }> => ({
  ...settings,
  name,
  transport: "stdio",
  command: STDIO_SERVER[0],
  args: [STDIO_SERVER[1]],
  env,
});

let cwd: string;
let mcps: SessionMcp[];
let stderr: string[];

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "hermes-mcp-")));
  mcps = [];
  stderr = [];
  log.setRedactor(redactSecrets);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});

afterEach(async () => {
  await Promise.all(mcps.map((mcp) => mcp.dispose()));
  vi.restoreAllMocks();
  rmSync(cwd, { recursive: true, force: true });
});

function sessionMcp(options: Partial<ConstructorParameters<typeof SessionMcp>[0]> = {}): { mcp: SessionMcp; tools: ToolRegistry } {
  const tools = new ToolRegistry();
  const mcp = new SessionMcp({ cwd, env: { ...process.env, OPENROUTER_API_KEY: "sk-or-v1-notforchildren0000" }, tools, ...options });
  mcps.push(mcp);
  return { mcp, tools };
}

async function run(tools: ToolRegistry, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) {
  const tool = tools.get(name);
  if (!tool) throw new Error(`no tool ${name}; have ${tools.names().join(", ")}`);
  return tool.execute(args, toolContext({ cwd, ...(signal ? { signal } : {}) }));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("SessionMcp over stdio", () => {
  it("adds the server's tools before the first turn, runs them in the session cwd with the server's env only, and stops the child on dispose", async () => {
    const { mcp, tools } = sessionMcp();
    mcp.start([demo({ DEMO_GREETING: "hello" })]);
    await mcp.beforeTurn(new AbortController().signal);
    expect(tools.names()).toEqual(["mcp__demo__echo", "mcp__demo__add", "mcp__demo__fail", "mcp__demo__picture", "mcp__demo__where", "mcp__demo__wait"]);
    expect(await run(tools, "mcp__demo__echo", { text: "hi" })).toMatchObject({ content: "echo: hi" });
    expect(await run(tools, "mcp__demo__fail")).toMatchObject({ content: "boom: the demo tool failed", isError: true });
    expect((await run(tools, "mcp__demo__picture")).content).toBe("here it is\n[image: image/png, 68 bytes]");
    const where = JSON.parse((await run(tools, "mcp__demo__where")).content) as { cwd: string; pid: number; greeting: string; openrouter: string | null };
    expect(where).toMatchObject({ cwd, greeting: "hello", openrouter: null });
    expect(isAlive(where.pid)).toBe(true);
    expect(mcp.summary()).toEqual([{ name: "demo", status: "connected", tools: 6 }]);

    await mcp.dispose();
    expect(isAlive(where.pid)).toBe(false);
    expect(await run(tools, "mcp__demo__echo", { text: "late" })).toMatchObject({ isError: true, content: expect.stringContaining("not connected") });
  });

  it("honours the turn signal: a cancelled call ends at once", async () => {
    const { mcp, tools } = sessionMcp();
    mcp.start([demo()]);
    await mcp.beforeTurn(new AbortController().signal);
    const controller = new AbortController();
    const pending = run(tools, "mcp__demo__wait", {}, controller.signal);
    controller.abort();
    expect(await pending).toMatchObject({ isError: true, content: "Tool call cancelled by the user." });
    expect(await run(tools, "mcp__demo__add", { a: 2, b: 3 })).toMatchObject({ content: "5" });
  });

  it("logs a server that fails to start, with its stderr and secrets masked, and keeps the others", async () => {
    const { mcp, tools } = sessionMcp();
    const secret = "very-secret-token-value-123";
    mcp.start([
      demo({ DEMO_API_KEY: secret, MCP_DEMO_STDERR: `token is ${secret}`, MCP_DEMO_CRASH: "1" }, "broken"),
      { ...demo(), name: "missing", command: join(cwd, "no-such-binary") },
      demo(),
    ]);
    await mcp.beforeTurn(new AbortController().signal);
    expect(tools.names().every((name) => name.startsWith("mcp__demo__"))).toBe(true);
    expect(tools.names()).toHaveLength(6);
    const logged = stderr.join("");
    expect(logged).toContain('stdio MCP server "broken" failed to start');
    expect(logged).toContain("refusing to start");
    expect(logged).toContain('stdio MCP server "missing" failed to start');
    expect(logged).not.toContain(secret);
    expect(mcp.summary().map((server) => `${server.name}:${server.status}`)).toEqual(["broken:failed", "missing:failed", "demo:connected"]);
  });

  it("keeps the tools of a server that exits by itself; their calls fail until it is started again", async () => {
    const { mcp, tools } = sessionMcp();
    mcp.start([demo()]);
    await mcp.beforeTurn(new AbortController().signal);
    const { pid } = JSON.parse((await run(tools, "mcp__demo__where")).content) as { pid: number };
    process.kill(pid, "SIGKILL");
    while (mcp.summary()[0]?.status !== "closed") await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await run(tools, "mcp__demo__echo", { text: "x" })).toMatchObject({ isError: true, content: expect.stringContaining("not connected") });
    expect(stderr.join("")).toContain('MCP server "demo" disconnected');

    mcp.start([demo()]);
    await mcp.beforeTurn(new AbortController().signal);
    expect(tools.names()).toHaveLength(6);
    expect(await run(tools, "mcp__demo__echo", { text: "back" })).toMatchObject({ content: "echo: back" });
  });
});

describe("SessionMcp over http and sse", () => {
  let server: HttpMcpServer;
  beforeEach(async () => {
    server = await startHttpMcpServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it.each(["http", "sse"] as const)("connects over %s with the editor's headers", async (transport) => {
    const { mcp, tools } = sessionMcp();
    const url = transport === "sse" ? server.sseUrl : server.url;
    mcp.start([{ ...settings, name: "remote", transport, url, headers: { Authorization: "Bearer remote-secret-1234" } }]);
    await mcp.beforeTurn(new AbortController().signal);
    expect(await run(tools, "mcp__remote__add", { a: 20, b: 22 })).toMatchObject({ content: "42" });
    expect(server.calls).toEqual([{ name: "add", args: { a: 20, b: 22 } }]);
    expect(server.headers.length).toBeGreaterThan(0);
    for (const request of server.headers) expect(request.headers.authorization).toBe("Bearer remote-secret-1234");
    expect(redactSecrets("header was remote-secret-1234")).not.toContain("remote-secret-1234");
  });
});

describe("SessionMcp timing", () => {
  /** A connect the test finishes by hand. */
  function manualConnect() {
    const calls: { spec: McpServerSpec; signal: AbortSignal; resolve: (connection: McpConnection) => void; reject: (error: Error) => void }[] = [];
    const connect = (spec: McpServerSpec, options: { signal: AbortSignal }) =>
      new Promise<McpConnection>((resolve, reject) => {
        calls.push({ spec, signal: options.signal, resolve, reject });
        options.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      });
    return { calls, connect: connect as unknown as ConstructorParameters<typeof SessionMcp>[0]["connect"] };
  }
  const connection = (name: string, toolNames: string[]): McpConnection => ({
    name,
    tools: toolNames.map((tool) => ({ name: tool })),
    call: async () => ({ content: [{ type: "text", text: "ok" }] }),
    closed: new Promise(() => undefined),
    close: async () => undefined,
  });
  /** Lets deferred starts run and settled connects be handled. */
  const flush = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setImmediate(resolve));
  };

  it("returns from start at once and adds tools as soon as a server is ready while no turn has begun", async () => {
    const { calls, connect } = manualConnect();
    const { mcp, tools } = sessionMcp({ connect });
    mcp.start([demo()]);
    expect(tools.names()).toEqual([]);
    await flush();
    calls[0]!.resolve(connection("demo", ["echo"]));
    await flush();
    expect(tools.names()).toEqual(["mcp__demo__echo"]);
  });

  it("waits a bounded time for a slow server; its tools join at a later turn, never during one", async () => {
    const { calls, connect } = manualConnect();
    const { mcp, tools } = sessionMcp({ connect, turnWaitMs: 1 });
    mcp.start([demo()]);
    await mcp.beforeTurn(new AbortController().signal);
    expect(tools.names()).toEqual([]);
    await flush();
    calls[0]!.resolve(connection("demo", ["echo"]));
    await flush();
    expect(tools.names()).toEqual([]);
    await mcp.beforeTurn(new AbortController().signal);
    expect(tools.names()).toEqual(["mcp__demo__echo"]);
  });

  it("stops waiting when the turn is cancelled", async () => {
    const { connect } = manualConnect();
    const { mcp } = sessionMcp({ connect, turnWaitMs: 3_600_000 });
    mcp.start([demo()]);
    const controller = new AbortController();
    const waiting = mcp.beforeTurn(controller.signal).then(() => "stopped waiting");
    controller.abort();
    // Bounded: the turn would otherwise wait an hour for a server that never connects.
    const outcome = await Promise.race([waiting, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 10_000))]);
    expect(outcome).toBe("stopped waiting");
    expect(mcp.summary()).toEqual([{ name: "demo", status: "connecting", tools: 0 }]);
  });

  it("cancels starts in flight on dispose and does not start a server twice", async () => {
    const { calls, connect } = manualConnect();
    const { mcp } = sessionMcp({ connect });
    mcp.start([demo()]);
    mcp.start([demo()]);
    await flush();
    expect(calls).toHaveLength(1);
    await mcp.dispose();
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(mcp.summary()).toEqual([{ name: "demo", status: "failed", tools: 0 }]);
    expect(stderr.join("")).not.toContain("failed to start");

    const { calls: never, connect: unused } = manualConnect();
    const early = sessionMcp({ connect: unused }).mcp;
    early.start([demo()]);
    await early.dispose();
    expect(never).toHaveLength(0);
  });

  it("keeps the first of two tools with the same name", async () => {
    const { calls, connect } = manualConnect();
    const { mcp, tools } = sessionMcp({ connect });
    mcp.start([demo({}, "a.b"), demo({}, "a_b")]);
    await flush();
    calls[0]!.resolve(connection("a.b", ["t"]));
    calls[1]!.resolve(connection("a_b", ["t"]));
    await mcp.beforeTurn(new AbortController().signal);
    expect(tools.names()).toEqual(["mcp__a_b__t"]);
    expect(stderr.join("")).toContain("already exists; keeping the first");
  });
});
