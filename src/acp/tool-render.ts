import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../agent/events.js";
import { truncateForDisplay } from "../shared/truncate.js";

type ToolStart = Extract<AgentEvent, { type: "tool_start" }>;
type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;

export const DISPLAY_LIMIT = 5000;

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** A fence of backticks longer than any run inside `text`, so `N|` lines never render as tables. */
export function fenced(text: string, info = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** `tool_call` for a starting tool. Pure; never throws (falls back to the bare tool name). */
export function toolStartUpdate(event: ToolStart): SessionUpdate {
  try {
    return {
      sessionUpdate: "tool_call",
      toolCallId: event.callId,
      title: event.title || event.name,
      kind: event.kind,
      status: "in_progress",
      locations: event.locations.map((location) => ({ ...location })),
      rawInput: event.args as Record<string, unknown>,
      content: startContent(event),
    };
  } catch {
    return { sessionUpdate: "tool_call", toolCallId: event.callId, title: event.name, kind: "other", status: "in_progress" };
  }
}

/**
 * Reads show no start content: the title and location identify them, and an empty block would
 * make Zed show an empty Output section. Other tools show their arguments as JSON (≤ 1200 chars).
 */
function startContent(event: ToolStart): ToolCallContent[] {
  if (event.kind === "read") return [];
  const args = event.args;
  if (!args || (typeof args === "object" && Object.keys(args).length === 0)) return [];
  return [textContent(truncateForDisplay(JSON.stringify(args, null, 2), 1200))];
}

/** `tool_call_update` closing a tool call as completed or failed. Pure; never throws. */
export function toolEndUpdate(event: ToolEnd): SessionUpdate {
  let text: string;
  try {
    text = completionText(event);
  } catch {
    text = event.content;
  }
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: event.callId,
    status: event.isError ? "failed" : "completed",
    content: text ? [textContent(truncateForDisplay(text, DISPLAY_LIMIT))] : [],
  };
}

interface ReadFileDetails {
  path: string;
  offset?: number;
  limit?: number;
  totalLines?: number;
  content: string;
}

function completionText(event: ToolEnd): string {
  if (event.name === "read_file") return readFileText(event);
  return event.content;
}

function readFileText(event: ToolEnd): string {
  const details = event.details as Partial<ReadFileDetails> | undefined;
  if (event.isError) return `Read failed: ${errorText(event.content)}`;
  if (!details || typeof details.content !== "string") return event.content;
  let header = `Read ${details.path}`;
  if (details.offset && details.offset > 1) header += ` (from line ${details.offset}, limit ${details.limit})`;
  if (details.totalLines !== undefined) header += ` — ${details.totalLines} total lines`;
  const budget = DISPLAY_LIMIT - header.length - 200;
  const body = details.content.length > budget ? `${details.content.slice(0, budget)}\n... (truncated for display)` : details.content;
  return `${header}\n\n${fenced(body)}`;
}

/** The `error` field of a JSON error result, or the text itself. */
function errorText(content: string): string {
  try {
    const parsed = JSON.parse(content) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
  } catch {
    // plain-text error
  }
  return content;
}
