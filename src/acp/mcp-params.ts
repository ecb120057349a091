import { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { McpServerInput } from "../runtime/mcp/server-spec.js";
import { log } from "../shared/logger.js";

/**
 * The `mcpServers` of `session/new`, `load`, `resume` and `fork` as runtime inputs, checked
 * before anything is created: ACP's stdio `{name, command, args, env: [{name, value}]}`, http
 * `{type: "http", name, url, headers: [{name, value}]}` and sse `{type: "sse", …}`.
 *
 * Throws RequestError -32602 "Invalid params" when two servers share a name (`data: {serverName}`
 * naming the duplicate) or a server is malformed (`data: {serverName, field}`). Errors carry names
 * only: never a command, argument, environment value, URL or header value. Servers of a transport
 * this agent does not advertise (`type: "acp"`) are skipped with a warning.
 */
export function parseMcpServers(raw: unknown): McpServerInput[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw RequestError.invalidParams({ field: "mcpServers" }, "mcpServers must be an array");
  const seen = new Set<string>();
  for (const server of raw) {
    const name = isRecord(server) && typeof server.name === "string" ? server.name : undefined;
    if (name === undefined) continue;
    if (seen.has(name)) throw RequestError.invalidParams({ serverName: name }, `duplicate MCP server name ${JSON.stringify(name)}`);
    seen.add(name);
  }
  const servers: McpServerInput[] = [];
  raw.forEach((server, index) => {
    const parsed = parseServer(server, index);
    if (parsed) servers.push(parsed);
  });
  return servers;
}

function parseServer(server: unknown, index: number): McpServerInput | undefined {
  if (!isRecord(server)) throw invalid(`mcpServers[${index}]`, "an MCP server must be an object");
  const name = server.name;
  if (typeof name !== "string" || name.trim() === "") throw invalid(typeof name === "string" ? name : `mcpServers[${index}]`, "an MCP server needs a non-empty name", "name");
  const type = server.type ?? "stdio";
  switch (type) {
    case "stdio": {
      if (typeof server.command !== "string" || server.command === "") throw invalid(name, `MCP server ${JSON.stringify(name)} needs a command`, "command");
      const args = server.args ?? [];
      if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) throw invalid(name, `MCP server ${JSON.stringify(name)}: args must be strings`, "args");
      return { name, transport: "stdio", command: server.command, args, env: pairs(server.env, name, "env") };
    }
    case "http":
    case "sse": {
      if (typeof server.url !== "string" || !isHttpUrl(server.url)) throw invalid(name, `MCP server ${JSON.stringify(name)} needs an http(s) url`, "url");
      return { name, transport: type === "sse" ? "sse" : "http", url: server.url, headers: pairs(server.headers, name, "headers") };
    }
    default:
      log.warn(`MCP server ${JSON.stringify(name)} skipped: transport ${JSON.stringify(String(type))} is not supported`);
      return undefined;
  }
}

/** `[{name, value}]` as a map; later entries win. */
function pairs(list: unknown, serverName: string, field: "env" | "headers"): Record<string, string> {
  const result: Record<string, string> = {};
  if (list === undefined || list === null) return result;
  if (!Array.isArray(list)) throw invalid(serverName, `MCP server ${JSON.stringify(serverName)}: ${field} must be a list of {name, value}`, field);
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry.name !== "string" || typeof entry.value !== "string") {
      throw invalid(serverName, `MCP server ${JSON.stringify(serverName)}: ${field} must be a list of {name, value} strings`, field);
    }
    result[entry.name] = entry.value;
  }
  return result;
}

function invalid(serverName: string, message: string, field?: string): RequestError {
  return RequestError.invalidParams({ serverName, ...(field ? { field } : {}) }, message);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
