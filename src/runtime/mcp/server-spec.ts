/**
 * MCP server descriptions: what the editor sends (`session/new` / `load` / `resume` / `fork`) and
 * what config.yaml `mcp_servers:` holds, merged into one list of specs a session connects.
 *
 * config.yaml uses Hermes' format:
 * ```yaml
 * mcp_servers:
 *   github:                        # stdio
 *     command: npx
 *     args: ["-y", "@modelcontextprotocol/server-github"]
 *     env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" }   # ${VAR} is taken from the agent's environment
 *     timeout: 300                 # seconds per tool call (default 300)
 *     connect_timeout: 60          # seconds to start, initialize and list tools (default 60)
 *     tools: { include: [...], exclude: [...] }  # optional filter by the server's tool names
 *   remote:                        # streamable HTTP; `transport: sse` for the older SSE transport
 *     url: https://example.com/mcp
 *     headers: { Authorization: "Bearer ${REMOTE_TOKEN}" }
 *   off:                           # `enabled: false` skips a server
 *     enabled: false
 * ```
 * Editor servers are authoritative for their transport; a config entry of the same name still
 * lends them its `timeout`, `connect_timeout` and `tools` filter (as Hermes keeps the configured
 * timeout). Config servers the editor did not name are connected too, unless
 * `HERMES_ACP_SKIP_CONFIGURED_MCP=1`.
 */
import type { HermesConfig } from "../../config/schema.js";
import { log } from "../../shared/logger.js";
import type { ResolvedToolset } from "../../tools/toolsets.js";

/** An MCP server as the editor (or a test) names it, already validated. */
export type McpServerInput =
  | { name: string; transport: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { name: string; transport: "http" | "sse"; url: string; headers: Record<string, string> };

/** Everything needed to connect one server. */
export type McpServerSpec = McpServerInput & {
  source: "editor" | "config";
  /** Per tool call. */
  timeoutMs: number;
  /** Start (spawn or first request), initialize and list tools, together. */
  connectTimeoutMs: number;
  /** Server tool names to keep (all when absent) and to drop. */
  include?: string[];
  exclude?: string[];
};

export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 300_000;
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 60_000;

/** A config.yaml entry that cannot be used, with why (logged; never fatal). */
export interface McpConfigProblem {
  name: string;
  reason: string;
}

type Settings = Pick<McpServerSpec, "timeoutMs" | "connectTimeoutMs" | "include" | "exclude">;

/**
 * The servers a session connects: the editor's, in their order, then config.yaml's that the
 * editor did not name. Pure apart from reading `env` for `${VAR}` references.
 */
export function resolveMcpServers(
  editor: readonly McpServerInput[],
  configured: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { specs: McpServerSpec[]; problems: McpConfigProblem[] } {
  const problems: McpConfigProblem[] = [];
  const specs: McpServerSpec[] = editor.map((server) => ({ ...server, source: "editor" as const, ...settingsOf(configured[server.name]) }));
  const named = new Set(editor.map((server) => server.name));
  if (env.HERMES_ACP_SKIP_CONFIGURED_MCP === "1") return { specs, problems };
  for (const [name, entry] of Object.entries(configured)) {
    if (named.has(name)) continue;
    const parsed = configEntry(name, entry, env);
    if (parsed === undefined) continue;
    if ("reason" in parsed) problems.push(parsed);
    else specs.push(parsed);
  }
  return { specs, problems };
}

/** One `mcp_servers.<name>` entry; undefined when disabled. */
function configEntry(name: string, entry: unknown, env: NodeJS.ProcessEnv): McpServerSpec | McpConfigProblem | undefined {
  if (!isRecord(entry)) return { name, reason: "expected a map with `command` or `url`" };
  if (entry.enabled === false) return undefined;
  const settings = settingsOf(entry);
  if (typeof entry.command === "string" && entry.command.trim()) {
    const args = Array.isArray(entry.args) ? entry.args.map((arg) => expand(String(arg), env)) : [];
    return { name, transport: "stdio", command: expand(entry.command, env), args, env: stringMap(entry.env, env), source: "config", ...settings };
  }
  if (typeof entry.url === "string" && entry.url.trim()) {
    const transport = entry.transport === "sse" || entry.type === "sse" ? "sse" : "http";
    return { name, transport, url: expand(entry.url, env), headers: stringMap(entry.headers, env), source: "config", ...settings };
  }
  return { name, reason: "needs `command` (stdio) or `url` (http, sse)" };
}

function settingsOf(entry: unknown): Settings {
  const record = isRecord(entry) ? entry : {};
  const tools = isRecord(record.tools) ? record.tools : {};
  const include = stringList(tools.include);
  const exclude = stringList(tools.exclude);
  return {
    timeoutMs: secondsToMs(record.timeout, DEFAULT_MCP_TOOL_TIMEOUT_MS),
    connectTimeoutMs: secondsToMs(record.connect_timeout, DEFAULT_MCP_CONNECT_TIMEOUT_MS),
    ...(include ? { include } : {}),
    ...(exclude ? { exclude } : {}),
  };
}

function secondsToMs(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : fallback;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map(String) : undefined;
}

/** A map of strings; numbers and booleans are written as YAML spells them, null and nested values dropped. */
function stringMap(value: unknown, env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  if (!isRecord(value)) return result;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === "string") result[key] = expand(item, env);
    else if (typeof item === "number" || typeof item === "boolean") result[key] = String(item);
  }
  return result;
}

/** `${NAME}` → the variable's value (empty when unset). */
function expand(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => env[name] ?? "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A session's MCP servers: the editor's merged with config.yaml's (unusable config entries logged
 * and skipped), minus those the session's toolsets leave out (`no_mcp`, `mcp-<name>` disabled).
 */
export function sessionServerSpecs(
  servers: readonly McpServerInput[],
  config: HermesConfig | undefined,
  toolset: ResolvedToolset | undefined,
  env: NodeJS.ProcessEnv,
): McpServerSpec[] {
  const { specs, problems } = resolveMcpServers(servers, config?.mcp_servers ?? {}, env);
  for (const problem of problems) log.warn(`config.yaml mcp_servers.${problem.name} skipped: ${problem.reason}`);
  if (!toolset) return specs;
  return specs.filter((spec) => {
    const kept = toolset.mcp.enabled && !toolset.mcp.disabled.has(spec.name);
    if (!kept) log.info(`MCP server "${spec.name}" left out by the toolsets in config.yaml`);
    return kept;
  });
}
