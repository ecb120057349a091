/**
 * Conversion between `StoredMessage` (OpenAI chat shape) and `messages` rows, and between the
 * database's epoch seconds and the API's epoch milliseconds.
 *
 * Row layout: `content` always holds searchable text (for a user message with image parts, the
 * text parts joined by newlines) and `content_parts` the parts' JSON when the content was a list.
 * `tool_calls` is JSON; `tool_name` is a tool message's `name`.
 */
import { HermesError } from "../shared/errors.js";
import type { MessageRow, StoredContentPart, StoredMessage, StoredReasoningDetail, StoredReasoningItem, StoredToolCall } from "./types.js";
import { contentText } from "../shared/content-text.js";

export interface MessageColumns {
  role: string;
  content: string | null;
  content_parts: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  finish_reason: string | null;
  reasoning: string | null;
  /** JSON: Anthropic thinking blocks (assistant messages only). */
  reasoning_details: string | null;
  /** JSON: Responses API reasoning items (assistant messages only). */
  codex_reasoning_items: string | null;
  /** JSON of what the tool reported for the editor (tool messages only). */
  tool_details: string | null;
}

export interface MessageRecordRow extends MessageColumns {
  id: number;
  session_id: string;
  timestamp: number;
}

/** Column list matching `MessageRecordRow`, for SELECTs. */
export const MESSAGE_COLUMNS =
  "id, session_id, role, content, content_parts, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_details, codex_reasoning_items, tool_details";

/**
 * The row of a raw statement selecting `MESSAGE_COLUMNS` (one array of values, in that order) as
 * a record. Reading thousands of messages as arrays and building the records here costs about
 * half of what the driver takes to build row objects itself (a `session/load` reads them all).
 */
export function recordOfValues(values: readonly unknown[]): MessageRecordRow {
  return {
    id: values[0] as number,
    session_id: values[1] as string,
    role: values[2] as string,
    content: values[3] as string | null,
    content_parts: values[4] as string | null,
    tool_call_id: values[5] as string | null,
    tool_calls: values[6] as string | null,
    tool_name: values[7] as string | null,
    timestamp: values[8] as number,
    finish_reason: values[9] as string | null,
    reasoning: values[10] as string | null,
    reasoning_details: values[11] as string | null,
    codex_reasoning_items: values[12] as string | null,
    tool_details: values[13] as string | null,
  };
}

export const toSeconds = (ms: number): number => ms / 1000;
export const toMillis = (seconds: number): number => Math.round(seconds * 1000);

/** Row values for `message`. Throws HermesError("invalid_params") for a role it does not know. */
export function encodeMessage(message: StoredMessage): MessageColumns {
  const row: MessageColumns = {
    role: message.role,
    content: null,
    content_parts: null,
    tool_call_id: null,
    tool_calls: null,
    tool_name: null,
    finish_reason: null,
    reasoning: null,
    reasoning_details: null,
    codex_reasoning_items: null,
    tool_details: null,
  };
  switch (message.role) {
    case "system":
      row.content = message.content;
      return row;
    case "user":
      if (typeof message.content === "string") {
        row.content = message.content;
      } else {
        row.content = textOfParts(message.content);
        row.content_parts = JSON.stringify(message.content);
      }
      return row;
    case "assistant":
      row.content = message.content;
      if (message.tool_calls && message.tool_calls.length > 0) row.tool_calls = JSON.stringify(message.tool_calls);
      row.reasoning = message.reasoning ?? null;
      if (message.reasoning_details?.length) row.reasoning_details = JSON.stringify(message.reasoning_details);
      if (message.codex_reasoning_items?.length) row.codex_reasoning_items = JSON.stringify(message.codex_reasoning_items);
      row.finish_reason = message.finish_reason ?? null;
      return row;
    case "tool":
      row.content = message.content;
      row.tool_call_id = message.tool_call_id;
      row.tool_name = message.name ?? null;
      return row;
    default:
      throw new HermesError("invalid_params", `cannot store a message with role ${JSON.stringify((message as { role?: unknown }).role)}`);
  }
}

/** The message a row holds; the inverse of `encodeMessage` (optional fields absent when null). */
export function decodeMessage(row: MessageColumns): StoredMessage {
  switch (row.role) {
    case "system":
      return { role: "system", content: row.content ?? "" };
    case "user":
      return { role: "user", content: row.content_parts ? parseJson<StoredContentPart[]>(row.content_parts, []) : (row.content ?? "") };
    case "assistant": {
      const message: Extract<StoredMessage, { role: "assistant" }> = { role: "assistant", content: row.content };
      if (row.tool_calls) message.tool_calls = parseJson<StoredToolCall[]>(row.tool_calls, []);
      if (row.reasoning !== null) message.reasoning = row.reasoning;
      const details = row.reasoning_details ? parseJson<StoredReasoningDetail[]>(row.reasoning_details, []) : [];
      if (Array.isArray(details) && details.length) message.reasoning_details = details;
      const items = row.codex_reasoning_items ? parseJson<StoredReasoningItem[]>(row.codex_reasoning_items, []) : [];
      if (Array.isArray(items) && items.length) message.codex_reasoning_items = items;
      if (row.finish_reason !== null) message.finish_reason = row.finish_reason;
      return message;
    }
    case "tool": {
      const message: Extract<StoredMessage, { role: "tool" }> = { role: "tool", tool_call_id: row.tool_call_id ?? "", content: row.content ?? "" };
      if (row.tool_name !== null) message.name = row.tool_name;
      return message;
    }
    default:
      // a row written by something else: keep its text rather than lose it
      return { role: "user", content: row.content ?? "" };
  }
}

export function decodeRow(row: MessageRecordRow): MessageRow {
  const decoded: MessageRow = { id: row.id, sessionId: row.session_id, timestamp: toMillis(row.timestamp), message: decodeMessage(row) };
  if (row.tool_details) decoded.toolDetails = parseJson<unknown>(row.tool_details, undefined);
  return decoded;
}

/** Number of tool calls a message makes (counted into `sessions.tool_call_count`). */
export function toolCallsIn(message: StoredMessage): number {
  return message.role === "assistant" ? (message.tool_calls?.length ?? 0) : 0;
}

/** A message's text for previews and search context: content, else its tool calls' names. */
export function messageText(message: StoredMessage): string {
  if (message.role === "user") return typeof message.content === "string" ? message.content : textOfParts(message.content);
  if (message.role === "assistant" && !message.content && message.tool_calls?.length) {
    return message.tool_calls.map((call) => `[${call.function.name}(${call.function.arguments})]`).join(" ");
  }
  return message.content ?? "";
}

/** The searchable text of a part list: its words only (an image placeholder would only pollute search). */
function textOfParts(parts: StoredContentPart[]): string {
  return contentText(parts, { images: "omit" });
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** `model_config` JSON, or `{}` when absent or unreadable. */
export function parseObject(text: string | null): Record<string, unknown> {
  if (!text) return {};
  const value = parseJson<unknown>(text, {});
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
