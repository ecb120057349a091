import { isSecretName, registerSecret } from "../../config/redact.js";
import { log } from "../../shared/logger.js";
import { createMcpTool, type McpCallResult } from "../../tools/mcp/mcp-tool.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { connectMcpServer, type McpConnection } from "./connection.js";
import type { McpServerSpec } from "./server-spec.js";

/**
 * The longest a turn waits for servers that are still starting before it calls the model. A
 * server that needs longer keeps starting (up to its `connect_timeout`) and its tools join at the
 * start of a later turn.
 */
export const MCP_TURN_WAIT_MS = 10_000;

type ServerState =
  | { status: "connecting"; spec: McpServerSpec; settled: Promise<void> }
  | { status: "connected"; spec: McpServerSpec; connection: McpConnection; attached: boolean }
  | { status: "failed" | "closed"; spec: McpServerSpec };

/** Header names whose values are credentials (masked in logs and tool output from now on). */
const SECRET_HEADER = /auth|token|key|secret|cookie|session|password/i;

export interface SessionMcpOptions {
  cwd: string;
  /** The agent's environment; stdio children get a filtered copy. */
  env: NodeJS.ProcessEnv;
  /** The session's tools; connected servers' tools are added to it. */
  tools: ToolRegistry;
  /** Seam for tests; defaults to the SDK-backed `connectMcpServer`. */
  connect?: typeof connectMcpServer;
  turnWaitMs?: number;
}

/**
 * The MCP servers of one session. `start` connects in the background and returns at once, so
 * `session/new` never waits for a server. Tools are added to the session's registry as soon as a
 * server is ready while no turn has begun yet, and otherwise only at the start of a turn
 * (`beforeTurn`), never while a turn runs: the tool list a model call sees does not change under
 * it. A server that fails is logged and left out; nothing here throws.
 *
 * Lifetime: `dispose` (session close, delete, or the connection closing) stops every server and
 * cancels every start in flight; a server that exits by itself leaves its tools in place, and
 * their calls fail with an error result.
 */
export class SessionMcp {
  private readonly servers = new Map<string, ServerState>();
  /** Tool names added per server, so a reconnected server reuses its tools instead of clashing. */
  private readonly added = new Map<string, Set<string>>();
  private readonly lifetime = new AbortController();
  private turnStarted = false;

  constructor(private readonly options: SessionMcpOptions) {}

  /**
   * Starts connecting (on the next timer tick, after the current request is answered) every
   * server whose name is not already connected or connecting.
   */
  start(specs: readonly McpServerSpec[]): void {
    for (const spec of specs) {
      if (this.lifetime.signal.aborted) return;
      const current = this.servers.get(spec.name)?.status;
      if (current === "connecting" || current === "connected") continue;
      registerSpecSecrets(spec);
      const settled = this.connect(spec);
      this.servers.set(spec.name, { status: "connecting", spec, settled });
    }
  }

  /**
   * Called before each turn's first model call: waits (up to the turn wait, or until `signal`
   * fires) for servers still starting, then adds the tools of every connected server not yet
   * added. Never throws.
   */
  async beforeTurn(signal: AbortSignal): Promise<void> {
    this.turnStarted = true;
    const pending = [...this.servers.values()].flatMap((state) => (state.status === "connecting" ? [state.settled] : []));
    if (pending.length) await waitAny(Promise.allSettled(pending), signal, this.options.turnWaitMs ?? MCP_TURN_WAIT_MS);
    this.attachAll();
    for (const state of this.servers.values()) {
      if (state.status === "connecting") log.info(`MCP server "${state.spec.name}" is still starting; its tools join a later turn`);
    }
  }

  /** Server names by state, for status displays. */
  summary(): { name: string; status: ServerState["status"]; tools: number }[] {
    return [...this.servers.values()].map((state) => ({
      name: state.spec.name,
      status: state.status,
      tools: state.status === "connected" ? state.connection.tools.length : 0,
    }));
  }

  /** Stops every server (stdio children have exited when it resolves) and cancels starts in flight. Never throws. */
  async dispose(): Promise<void> {
    this.lifetime.abort();
    const states = [...this.servers.values()];
    await Promise.allSettled(
      states.map((state) => (state.status === "connected" ? state.connection.close() : state.status === "connecting" ? state.settled : undefined)),
    );
    for (const state of this.servers.values()) {
      if (state.status === "connected") this.servers.set(state.spec.name, { status: "closed", spec: state.spec });
    }
  }

  private async connect(spec: McpServerSpec): Promise<void> {
    const connect = this.options.connect ?? connectMcpServer;
    // Let the answer to session/new leave first: loading the SDK and spawning take tens of ms.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (this.lifetime.signal.aborted) {
      this.servers.set(spec.name, { status: "closed", spec });
      return;
    }
    try {
      const connection = await connect(spec, { cwd: this.options.cwd, env: this.options.env, signal: this.lifetime.signal });
      if (this.lifetime.signal.aborted) {
        await connection.close();
        this.servers.set(spec.name, { status: "closed", spec });
        return;
      }
      log.info(`MCP server "${spec.name}" connected (${spec.transport}, ${connection.tools.length} tool(s))`);
      this.servers.set(spec.name, { status: "connected", spec, connection, attached: false });
      void connection.closed.then(() => {
        const state = this.servers.get(spec.name);
        if (state?.status === "connected" && state.connection === connection) this.servers.set(spec.name, { status: "closed", spec });
      });
      if (!this.turnStarted) this.attachAll();
    } catch (error) {
      this.servers.set(spec.name, { status: "failed", spec });
      if (!this.lifetime.signal.aborted) log.warn(error instanceof Error ? error.message : String(error));
    }
  }

  /** Calls a tool on the server's current connection (tools outlive a reconnect). */
  private call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const state = this.servers.get(server);
    if (state?.status !== "connected") return Promise.reject(new Error(`MCP server "${server}" is not connected (${state?.status ?? "unknown"})`));
    return state.connection.call(tool, args, signal);
  }

  private attachAll(): void {
    for (const state of this.servers.values()) {
      if (state.status !== "connected" || state.attached) continue;
      state.attached = true;
      const { spec, connection } = state;
      const added = this.added.get(spec.name) ?? new Set<string>();
      this.added.set(spec.name, added);
      for (const info of connection.tools) {
        if (spec.include && !spec.include.includes(info.name)) continue;
        if (spec.exclude?.includes(info.name)) continue;
        const tool = createMcpTool(spec.name, info, (name, args, signal) => this.call(spec.name, name, args, signal));
        if (added.has(tool.name)) continue;
        if (this.options.tools.get(tool.name)) {
          log.warn(`MCP server "${spec.name}": a tool named ${tool.name} already exists; keeping the first`);
          continue;
        }
        this.options.tools.add(tool);
        added.add(tool.name);
      }
    }
  }
}

/** Masks the spec's credential values (env of secret-looking names, auth-like headers) everywhere from now on. */
function registerSpecSecrets(spec: McpServerSpec): void {
  if (spec.transport === "stdio") {
    for (const [name, value] of Object.entries(spec.env)) if (isSecretName(name)) registerSecret(value);
  } else {
    for (const [name, value] of Object.entries(spec.headers)) {
      if (!SECRET_HEADER.test(name)) continue;
      registerSecret(value);
      registerSecret(value.replace(/^\s*(Bearer|Basic|Token)\s+/i, ""));
    }
  }
}

/** Resolves when `promise` settles, `signal` fires or `ms` pass. */
async function waitAny(promise: Promise<unknown>, signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      onAbort = resolve;
      signal.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal.removeEventListener("abort", onAbort);
}
