/**
 * The JSON `session_search` answers with (Hermes' field names: `success`, `mode`, `results`,
 * `session_id`, `match_message_id`, `messages`…; times as ISO 8601 strings) and the structured
 * `details` the editor renders. Pure functions over the port's plain data.
 */
import type { SessionSearchContextMessage, SessionSearchMessage, SessionSearchSession } from "../ports.js";
import type { SessionSearchDetailRow } from "./details.js";

export type { SessionSearchDetailRow, SessionSearchDetails, SessionSearchMode } from "./details.js";

/** Longest message text in a hydrated window or a transcript; the rest is cut with a note. */
export const MAX_MESSAGE_CHARS = 4000;
/** Longest summary kept in `details` (the editor shows at most 500). */
const MAX_SUMMARY_CHARS = 500;

export function iso(ms: number): string {
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : "unknown";
}

/** A stored message for the model: content cut to `max`, optional fields only when set. */
export function shapeMessage(message: SessionSearchMessage, anchorId?: number, max = MAX_MESSAGE_CHARS): Record<string, unknown> {
  const entry: Record<string, unknown> = { id: message.id, role: message.role };
  const content = message.content;
  if (content !== null && content.length > max) {
    entry.content = `${content.slice(0, max)}…`;
    entry.content_truncated = true;
    entry.original_content_chars = content.length;
  } else {
    entry.content = content;
  }
  entry.timestamp = iso(message.timestamp);
  if (message.toolName) entry.tool_name = message.toolName;
  if (message.toolCalls?.length) entry.tool_calls = message.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
  if (message.toolCallId) entry.tool_call_id = message.toolCallId;
  if (anchorId !== undefined && message.id === anchorId) entry.anchor = true;
  return entry;
}

/** A search-context message (already cut short by the store) for the model. */
export function shapeContext(message: SessionSearchContextMessage): Record<string, unknown> {
  return {
    id: message.id,
    role: message.role,
    content: message.text,
    ...(message.toolName ? { tool_name: message.toolName } : {}),
    ...(message.isMatch ? { anchor: true } : {}),
  };
}

/** Hermes' `session_meta` block of scroll and read results. */
export function sessionMeta(session: SessionSearchSession): Record<string, unknown> {
  return {
    title: session.title,
    when: iso(session.lastActiveAt),
    started_at: iso(session.startedAt),
    source: session.source,
    model: session.model,
    cwd: session.cwd,
    message_count: session.messageCount,
  };
}

/** A browse row for the model. */
export function shapeRecent(session: SessionSearchSession): Record<string, unknown> {
  return {
    session_id: session.id,
    title: session.title,
    preview: session.preview,
    source: session.source,
    cwd: session.cwd,
    started_at: iso(session.startedAt),
    last_active: iso(session.lastActiveAt),
    message_count: session.messageCount,
    ...(session.lineageRootId ? { parent_session_id: session.lineageRootId } : {}),
  };
}

/** A session as one row of the editor's list. */
export function detailRow(session: SessionSearchSession, summary: string): SessionSearchDetailRow {
  return {
    sessionId: session.id,
    title: session.title,
    when: iso(session.lastActiveAt),
    source: session.source,
    messageCount: session.messageCount,
    summary: oneLine(summary, MAX_SUMMARY_CHARS),
  };
}

/** `text` on one line (whitespace runs collapsed), cut to `max` characters with `…`. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The text of a message for a one-line summary: content, else its tool calls. */
export function messageSummary(message: SessionSearchMessage): string {
  if (message.content) return message.content;
  if (message.toolCalls?.length) return message.toolCalls.map((call) => `[${call.name}(${call.arguments})]`).join(" ");
  return "";
}
