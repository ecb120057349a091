import type { Readable } from "node:stream";
import type { McpCallResult, McpCallTool, McpToolInfo } from "../../tools/mcp/mcp-tool.js";
import { log } from "../../shared/logger.js";
import { VERSION } from "../../shared/version.js";
import type { McpServerSpec } from "./server-spec.js";

/**
 * One live connection to an MCP server, made with `@modelcontextprotocol/sdk` (imported on first
 * use, never at start-up). Stdio children start in the session's cwd with piped stdin (never the
 * agent's), a minimal environment plus the server's own `env`, and stderr captured into the log.
 */
export interface McpConnection {
  readonly name: string;
  /** The server's tools as listed once at connect time. */
  readonly tools: McpToolInfo[];
  readonly call: McpCallTool;
  /** Resolves when the connection has ended, by `close()` or because the server went away. */
  readonly closed: Promise<void>;
  /** Ends the connection; for stdio, resolves once the child has exited. Idempotent; never throws. */
  close(): Promise<void>;
}

/** Variables a stdio server inherits from the agent besides the SDK's own few (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
const INHERITED_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|TEMP|TMP|XDG_[A-Z_]+|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(HTTP|HTTPS|NO|ALL)_PROXY|(http|https|no|all)_proxy)$/;
/** How much of a child's stderr is kept to explain a failed start. */
const STDERR_TAIL_CHARS = 2_000;

/** Longest wait for a stdio child to be gone after `close()` (the SDK kills it by then). */
const CHILD_EXIT_WAIT_MS = 6_000;

/** Pids of live stdio children, stopped when the agent exits however it exits. */
const liveChildren = new Set<number>();
let exitHookInstalled = false;

function trackChild(pid: number): void {
  liveChildren.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of liveChildren) {
      try {
        process.kill(child, "SIGTERM");
      } catch {
        // already gone
      }
    }
  });
}

/**
 * Connects, initializes and lists the server's tools. Rejects (after stopping anything it started)
 * when the server cannot be started or reached, answers badly, takes longer than the spec's
 * `connectTimeoutMs`, or when `signal` fires. The message names the server, not its secrets.
 */
export async function connectMcpServer(spec: McpServerSpec, options: { cwd: string; env: NodeJS.ProcessEnv; signal: AbortSignal }): Promise<McpConnection> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const stderrTail = { text: "" };
  const transport = await createTransport(spec, options, stderrTail);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing = false;
  let connected = false;
  transport.onclose = () => {
    const pid = (transport as { pid?: number | null }).pid;
    if (typeof pid === "number") liveChildren.delete(pid);
    if (connected && !closing) log.warn(`MCP server "${spec.name}" disconnected; its tools now fail until the session is reopened`);
    resolveClosed();
  };
  const client = new Client({ name: "hermes-agent", version: VERSION }, { capabilities: {} });
  client.onerror = (error) => log.debug(`MCP server "${spec.name}": ${error.message}`);
  const startSignal = AbortSignal.any([options.signal, AbortSignal.timeout(spec.connectTimeoutMs)]);
  const close = async (): Promise<void> => {
    closing = true;
    if (spec.transport === "http") await terminateHttpSession(transport);
    await client.close().catch(() => undefined);
    // The child exits once its stdin closes; the SDK escalates to SIGTERM, then SIGKILL, within ~4 s.
    // Its `close` event (also emitted after a failed spawn) ends the connection.
    if (spec.transport === "stdio") await within(closed, CHILD_EXIT_WAIT_MS);
  };
  try {
    await client.connect(transport, { signal: startSignal, timeout: spec.connectTimeoutMs });
    const pid = (transport as { pid?: number | null }).pid;
    if (typeof pid === "number") trackChild(pid);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { signal: startSignal, timeout: spec.connectTimeoutMs });
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    const call: McpCallTool = async (toolName, args, signal) =>
      (await client.callTool({ name: toolName, arguments: args }, undefined, { signal, timeout: spec.timeoutMs })) as McpCallResult;
    connected = true;
    return { name: spec.name, tools, call, closed, close };
  } catch (error) {
    await close();
    throw new Error(failureMessage(spec, error, startSignal, options.signal, stderrTail.text));
  }
}

type AnyTransport = import("@modelcontextprotocol/sdk/shared/transport.js").Transport;

async function createTransport(
  spec: McpServerSpec,
  options: { cwd: string; env: NodeJS.ProcessEnv },
  stderrTail: { text: string },
): Promise<AnyTransport> {
  if (spec.transport === "stdio") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (value !== undefined && INHERITED_ENV.test(key)) env[key] = value;
    const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...env, ...spec.env }, cwd: options.cwd, stderr: "pipe" });
    captureStderr(spec.name, transport.stderr as Readable | null, stderrTail);
    return transport;
  }
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  if (spec.transport === "sse") {
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    return new SSEClientTransport(url, { requestInit });
  }
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return new StreamableHTTPClientTransport(url, { requestInit });
}

/** Logs the child's stderr line by line (debug) and keeps its tail for a failure report. */
function captureStderr(name: string, stream: Readable | null, tail: { text: string }): void {
  if (!stream) return;
  let partial = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    tail.text = (tail.text + chunk).slice(-STDERR_TAIL_CHARS);
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) log.debug(`MCP server "${name}" stderr: ${line}`);
  });
  stream.on("error", () => undefined);
}

/** Politely ends a streamable HTTP session (DELETE), giving up after a second. */
async function terminateHttpSession(transport: AnyTransport): Promise<void> {
  const http = transport as { terminateSession?: () => Promise<void>; sessionId?: string };
  if (!http.terminateSession || !http.sessionId) return;
  await within(http.terminateSession().catch(() => undefined), 1_000);
}

/** Resolves when `promise` does or after `ms`, whichever comes first. */
async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  clearTimeout(timer);
}

function failureMessage(spec: McpServerSpec, error: unknown, startSignal: AbortSignal, outer: AbortSignal, stderr: string): string {
  let reason: string;
  if (outer.aborted) reason = "cancelled (the session ended)";
  else if (startSignal.aborted) reason = `no answer within ${Math.round(spec.connectTimeoutMs / 1000)} s (connect_timeout)`;
  else reason = describeError(error);
  const tail = stderr.trim() ? `; its stderr ended with:\n${stderr.trim()}` : "";
  return `${spec.transport} MCP server "${spec.name}" failed to start: ${reason}${tail}`;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message && !error.message.includes(cause.message) ? `${error.message} (${cause.message})` : error.message;
}
