import { createHash } from "node:crypto";
import { z } from "zod";
import { defineTool, type AnyTool, type ToolResult } from "../types.js";

/**
 * MCP tools as session tools. The tools layer knows MCP only through these structural types (the
 * shapes of MCP's `Tool` and `CallToolResult`); connecting and calling belong to the runtime,
 * which hands each tool a `McpCallTool` bound to its server's connection.
 */

/** A tool as an MCP server lists it (`tools/list`). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { title?: string; readOnlyHint?: boolean };
}

/** One content block of an MCP tool result. */
export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** What `tools/call` answers. */
export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * Calls one tool on the server. Rejects when the server is gone, the call times out or the signal
 * fires; a tool's own failure resolves with `isError`.
 */
export type McpCallTool = (toolName: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>;

/** What an MCP tool reports for the editor besides its text. */
export interface McpToolDetails {
  server: string;
  tool: string;
  structuredContent?: unknown;
}

/** Longest tool name providers accept (OpenAI and Anthropic: 64). */
const MAX_TOOL_NAME = 64;
/** Most text a result hands the model; the rest is cut with a note. */
export const MCP_RESULT_MAX_CHARS = 100_000;

/** A name part made of `[A-Za-z0-9_-]` only, so `ai.exa/exa` becomes `ai_exa_exa`. */
export function sanitizeMcpNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * `mcp__<server>__<tool>`, sanitised. A name past 64 characters keeps its first 55 and gains a
 * short hash of the whole, so distinct long names stay distinct and stable.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${sanitizeMcpNamePart(server)}__${sanitizeMcpNamePart(tool)}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** The server's input schema as a model parameters schema: always an object with `properties`. */
function parametersSchema(inputSchema: Record<string, unknown> | undefined): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...(inputSchema ?? {}) };
  delete schema.$schema;
  schema.type = "object";
  if (!schema.properties || typeof schema.properties !== "object") schema.properties = {};
  return schema;
}

/** Any JSON object; the server validates its own arguments. */
const looseParams = z.lazy(() => z.record(z.string(), z.unknown()));

/**
 * One MCP tool as a session tool: kind `other`, named `mcp__<server>__<tool>`, the server's JSON
 * schema sent to the model as is. Mutating unless the server marks it read-only (so calls of
 * unknown effect never overlap). `execute` never throws: a failed call, a dead server and a
 * cancelled turn are error results.
 */
export function createMcpTool(server: string, info: McpToolInfo, call: McpCallTool): AnyTool {
  const name = mcpToolName(server, info.name);
  const description = info.description?.trim() || info.title || info.annotations?.title || `Tool ${info.name} of MCP server ${server}`;
  return defineTool({
    name,
    description,
    kind: "other",
    mutating: info.annotations?.readOnlyHint !== true,
    params: looseParams,
    jsonSchema: parametersSchema(info.inputSchema),
    describe: () => ({ title: name, locations: [] }),
    async execute(args, ctx): Promise<ToolResult> {
      try {
        const result = await call(info.name, args, ctx.signal);
        return formatMcpResult(server, info.name, result);
      } catch (error) {
        if (ctx.signal.aborted) return { content: "Tool call cancelled by the user.", isError: true };
        const message = error instanceof Error ? error.message : String(error);
        return { content: `MCP tool ${info.name} (server ${server}) failed: ${message}`, isError: true, details: { server, tool: info.name } };
      }
    },
  });
}

/**
 * A `tools/call` result as a tool result: text blocks joined with newlines, other blocks described
 * in one bracketed line each (images, audio and binary resources are never inlined), structured
 * content as JSON when there is no content, `isError` kept. Capped at `MCP_RESULT_MAX_CHARS`.
 */
export function formatMcpResult(server: string, tool: string, result: McpCallResult): ToolResult {
  const parts = (Array.isArray(result.content) ? result.content : []).map(describeBlock);
  let text = parts.join("\n");
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text) text = result.isError ? `MCP tool ${tool} failed without a message.` : "(no output)";
  if (text.length > MCP_RESULT_MAX_CHARS) {
    text = `${text.slice(0, MCP_RESULT_MAX_CHARS)}\n... [truncated: ${text.length} chars total]`;
  }
  const details: McpToolDetails = { server, tool, ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) };
  return { content: text, details, ...(result.isError ? { isError: true } : {}) };
}

function describeBlock(block: McpContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "image":
      return `[image: ${block.mimeType ?? "unknown type"}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType ?? "unknown type"}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${block.name ?? block.uri ?? "unnamed"}${block.uri ? ` <${block.uri}>` : ""}${block.mimeType ? ` (${block.mimeType})` : ""}]`;
    case "resource": {
      const resource = block.resource ?? {};
      const where = `${resource.uri ?? "unnamed"}${resource.mimeType ? ` (${resource.mimeType})` : ""}`;
      if (typeof resource.text === "string") return `[resource: ${where}]\n${resource.text}`;
      return `[resource: ${where}, ${base64Bytes(resource.blob)} bytes of binary data]`;
    }
    default:
      return `[${block.type} content]`;
  }
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
