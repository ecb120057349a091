/**
 * Appending and loading messages. A session row is written together with its first message
 * (never before), and each append updates the session's counters and `last_active` in the same
 * transaction, so a killed process leaves either the whole append or none of it.
 */
import { HermesError } from "../shared/errors.js";
import { decodeRow, encodeMessage, MESSAGE_COLUMNS, recordOfValues, toSeconds, toolCallsIn, type MessageRecordRow } from "./codec.js";
import type { Connection } from "./connection.js";
import type { MessageRow, NewSession, SessionMeta, StoredMessage } from "./types.js";

/** Validates and freezes what a session will be written with. Pure: touches no database. */
export function sessionMeta(input: NewSession): SessionMeta {
  for (const key of ["id", "cwd", "model", "provider"] as const) {
    if (typeof input[key] !== "string") throw new HermesError("invalid_params", `session ${key} must be a string`);
  }
  if (input.id.length === 0) throw new HermesError("invalid_params", "session id must not be empty");
  return Object.freeze({
    id: input.id,
    cwd: input.cwd,
    model: input.model,
    provider: input.provider,
    systemPrompt: input.systemPrompt ?? null,
    parentSessionId: input.parentSessionId ?? null,
    source: input.source ?? "acp",
    modelConfig: Object.freeze({ ...(input.modelConfig ?? {}) }),
  });
}

const UPSERT_SESSION = `
INSERT INTO sessions (id, source, model, model_config, cwd, system_prompt, parent_session_id, started_at, last_active)
VALUES (@id, @source, @model, @model_config, @cwd, @system_prompt, (SELECT id FROM sessions WHERE id = @parent), @now, @now)
ON CONFLICT(id) DO NOTHING`;

const INSERT_MESSAGE = `
INSERT INTO messages (session_id, role, content, content_parts, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_details, codex_reasoning_items, tool_details)
VALUES (@session_id, @role, @content, @content_parts, @tool_call_id, @tool_calls, @tool_name, @timestamp, @finish_reason, @reasoning, @reasoning_details, @codex_reasoning_items, @tool_details)`;

const BUMP_SESSION = `
UPDATE sessions SET message_count = message_count + @messages, tool_call_count = tool_call_count + @tool_calls,
  last_active = max(last_active, @now), ended_at = NULL, end_reason = NULL
WHERE id = @id`;

/**
 * Appends `messages` (in order) to the session `meta.id`, writing the session row first when it
 * does not exist yet (its metadata comes from `meta`; an existing row keeps its own). One write
 * transaction; answers the new message ids, ascending. Appending reopens an ended session.
 * Throws HermesError("invalid_params") for a message it cannot store (nothing is written then);
 * SQLite errors propagate.
 */
export function appendMessages(
  conn: Connection,
  meta: SessionMeta,
  messages: readonly StoredMessage[],
  nowMs: number,
  toolDetails: readonly unknown[] = [],
): number[] {
  if (messages.length === 0) return [];
  const rows = messages.map((message, index) => {
    const row = encodeMessage(message);
    const details = toolDetails[index];
    if (message.role === "tool" && details !== undefined) row.tool_details = safeJson(details);
    return row;
  });
  const now = toSeconds(nowMs);
  return conn.write(() => {
    conn.stmt(UPSERT_SESSION).run({
      id: meta.id,
      source: meta.source,
      model: meta.model,
      model_config: JSON.stringify({ ...meta.modelConfig, cwd: meta.cwd, provider: meta.provider }),
      cwd: meta.cwd,
      system_prompt: meta.systemPrompt,
      parent: meta.parentSessionId,
      now,
    });
    const insert = conn.stmt(INSERT_MESSAGE);
    const ids = rows.map((row) => Number(insert.run({ ...row, session_id: meta.id, timestamp: now }).lastInsertRowid));
    const toolCalls = messages.reduce((sum, message) => sum + toolCallsIn(message), 0);
    conn.stmt(BUMP_SESSION).run({ id: meta.id, messages: rows.length, tool_calls: toolCalls, now });
    return ids;
  });
}

const REPLACE_MESSAGE = `
UPDATE messages SET role = @role, content = @content, content_parts = @content_parts, tool_call_id = @tool_call_id,
  tool_calls = @tool_calls, tool_name = @tool_name, finish_reason = @finish_reason, reasoning = @reasoning,
  reasoning_details = @reasoning_details, codex_reasoning_items = @codex_reasoning_items, tool_details = @tool_details, timestamp = @timestamp
WHERE id = @id AND session_id = @session_id`;

/**
 * Overwrites stored message `messageId` of session `sessionId` with `message` (a partial answer
 * completed, or its text grown), keeping its place in the conversation; the session's tool-call
 * count grows by the calls `message` adds over the row's old ones. One write transaction.
 * False (nothing written) when the row is not there. Throws HermesError("invalid_params") for a
 * message it cannot store; SQLite errors propagate.
 */
export function replaceMessage(conn: Connection, sessionId: string, messageId: number, message: StoredMessage, nowMs: number): boolean {
  const row = encodeMessage(message);
  const now = toSeconds(nowMs);
  return conn.write(() => {
    const old = conn.stmt<MessageRecordRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ? AND session_id = ?`).get(messageId, sessionId);
    if (!old) return false;
    conn.stmt(REPLACE_MESSAGE).run({ ...row, id: messageId, session_id: sessionId, timestamp: now });
    const addedCalls = toolCallsIn(message) - toolCallsIn(decodeRow(old).message);
    conn.stmt(BUMP_SESSION).run({ id: sessionId, messages: 0, tool_calls: addedCalls, now });
    return true;
  });
}

/** Deletes stored message `messageId` of session `sessionId` (and its search entries); false when not there. */
export function deleteMessage(conn: Connection, sessionId: string, messageId: number): boolean {
  return conn.write(() => {
    const old = conn.stmt<MessageRecordRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ? AND session_id = ?`).get(messageId, sessionId);
    if (!old) return false;
    conn.stmt("DELETE FROM messages WHERE id = ?").run(messageId);
    conn
      .stmt("UPDATE sessions SET message_count = max(0, message_count - 1), tool_call_count = max(0, tool_call_count - ?) WHERE id = ?")
      .run(toolCallsIn(decodeRow(old).message), sessionId);
    return true;
  });
}

/** Message records selected by `MESSAGE_COLUMNS` + `tail` (FROM, WHERE, ORDER), read as raw rows. */
function messageRecords(conn: Connection, tail: string, ...params: unknown[]): MessageRecordRow[] {
  return conn.rawStmt(`SELECT ${MESSAGE_COLUMNS} ${tail}`).all(...params).map(recordOfValues);
}

/** Every message of a session as rows, in conversation order (one SELECT). Empty when unknown. */
export function loadMessageRows(conn: Connection, sessionId: string): MessageRow[] {
  return messageRecords(conn, "FROM messages WHERE session_id = ? ORDER BY id", sessionId).map(decodeRow);
}

/** At most `limit` rows of a session from its start (`first`) or its end (`last`), in conversation order. */
export function messageRowsAtEdge(conn: Connection, sessionId: string, edge: "first" | "last", limit: number): MessageRow[] {
  const order = edge === "first" ? "ASC" : "DESC";
  const rows = messageRecords(conn, `FROM messages WHERE session_id = ? ORDER BY id ${order} LIMIT ?`, sessionId, limit).map(decodeRow);
  return edge === "first" ? rows : rows.reverse();
}

/**
 * Rows of a session around message `messageId`: up to `before` earlier ones, the anchor (when it
 * belongs to the session) and up to `after` later ones, in conversation order. Two index seeks.
 */
export function messageRowsAround(conn: Connection, sessionId: string, messageId: number, before: number, after: number): MessageRow[] {
  const earlier = messageRecords(conn, "FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?", sessionId, messageId, before).reverse();
  const later = messageRecords(conn, "FROM messages WHERE session_id = ? AND id >= ? ORDER BY id ASC LIMIT ?", sessionId, messageId, after + 1);
  const anchored = later[0]?.id === messageId ? later : later.slice(0, after);
  return [...earlier, ...anchored].map(decodeRow);
}

/** JSON for stored details; values that cannot be serialised are dropped rather than failing the write. */
function safeJson(value: unknown): string | null {
  try {
    return JSON.stringify(value) ?? null;
  } catch {
    return null;
  }
}
