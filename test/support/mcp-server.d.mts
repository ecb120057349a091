import type { IncomingHttpHeaders } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** Types of mcp-server.mjs, the tiny MCP server the tests run. */

export interface RecordedMcpCall {
  name: string;
  args: Record<string, unknown>;
}

export interface HttpMcpServer {
  /** Streamable HTTP endpoint. */
  url: string;
  /** SSE endpoint (posts go to /messages). */
  sseUrl: string;
  calls: RecordedMcpCall[];
  headers: { method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export function createDemoServer(onCall?: (name: string, args: Record<string, unknown>) => void): McpServer;
export function startHttpMcpServer(): Promise<HttpMcpServer>;
/** `[node, path of mcp-server.mjs]`: the command that serves the demo tools on stdio. */
export const STDIO_SERVER: [string, string];
