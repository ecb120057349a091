/**
 * Reading rows of Python Hermes' state.db into this store's types: session records (times
 * converted from Hermes' REAL epoch seconds to ms, absent columns stood in for), visible messages
 * in the OpenAI chat shape, previews and last activity. Every function reads only (SELECT) and
 * throws SQLite's errors to its caller (hermes-history.ts turns them into "not available").
 */
import { parseObject } from "./codec.js";
import type { Connection } from "./connection.js";
import { asNumber, asText, column, visibleMessage, type HermesSchema } from "./hermes-schema.js";
import { cut } from "./search.js";
import type { MessageRow, SessionRecord, StoredContentPart, StoredMessage, StoredToolCall } from "./types.js";

/** Epoch seconds Hermes' times must fall within to be believed (a salvaged page can hold garbage). */
const EARLIEST_SECONDS = 1;
const LATEST_SECONDS = 32_503_680_000; // year 3000

/** Compaction hand-offs Hermes writes as ordinary messages; never a session's preview. */
const COMPACTION_PREFIXES = ["[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:"];

export interface HermesSessionRow {
  id: string;
  source: string | null;
  title: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  model: string | null;
  model_config: string | null;
  cwd: string | null;
  message_count: number | null;
  tool_call_count: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  last_activity_at: number | null;
  billing_provider: string | null;
  actual_cost_usd: number | null;
  estimated_cost_usd: number | null;
}

interface HermesMessageRow {
  id: number;
  session_id: string;
  role: string;
  content: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  timestamp: number;
  finish_reason: string | null;
  reasoning: string | null;
}

/** `ms` for a believable epoch-seconds value, else undefined. */
export function believableMillis(seconds: unknown): number | undefined {
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds >= EARLIEST_SECONDS && seconds <= LATEST_SECONDS
    ? Math.round(seconds * 1000)
    : undefined;
}

/**
 * The session columns as `HermesSessionRow` names, NULL for those this file lacks; text columns
 * read as text and numbers as numbers or NULL, whatever the file holds (see `asText`).
 */
export function sessionColumnsSql(schema: HermesSchema, alias = "s"): string {
  const text = (name: string): string => `${asText(column(schema.sessionColumns, alias, name))} AS ${name}`;
  const number = (name: string): string => `${asNumber(column(schema.sessionColumns, alias, name))} AS ${name}`;
  return [
    `${asText(`${alias}.id`)} AS id`,
    text("source"),
    number("started_at"),
    text("title"),
    text("parent_session_id"),
    number("ended_at"),
    text("end_reason"),
    text("model"),
    text("model_config"),
    text("cwd"),
    number("message_count"),
    number("tool_call_count"),
    number("input_tokens"),
    number("output_tokens"),
    number("reasoning_tokens"),
    number("last_activity_at"),
    text("billing_provider"),
    number("actual_cost_usd"),
    number("estimated_cost_usd"),
  ].join(", ");
}

const messageColumnsSql = (schema: HermesSchema, alias = "m"): string => {
  const text = (name: string): string => `${asText(column(schema.messageColumns, alias, name))} AS ${name}`;
  return [
    `${alias}.id AS id`,
    text("session_id"),
    text("role"),
    text("content"),
    `${asNumber(`${alias}.timestamp`)} AS timestamp`,
    text("tool_call_id"),
    text("tool_calls"),
    text("tool_name"),
    text("finish_reason"),
    text("reasoning"),
  ].join(", ");
};

/** The raw session row, undefined when Hermes has no such session. */
export function sessionRow(conn: Connection, schema: HermesSchema, id: string): HermesSessionRow | undefined {
  return conn.stmt<HermesSessionRow>(`SELECT ${sessionColumnsSql(schema)} FROM sessions s WHERE s.id = ?`).get(id);
}

/** The session's parent id (undefined when unknown, null for a root). */
export function parentOf(conn: Connection, schema: HermesSchema, id: string): string | null | undefined {
  if (!schema.sessionColumns.has("parent_session_id")) return conn.stmt("SELECT 1 FROM sessions WHERE id = ?").get(id) ? null : undefined;
  return conn.stmt<{ parent_session_id: string | null }>(`SELECT ${asText("parent_session_id")} AS parent_session_id FROM sessions WHERE id = ?`).get(id)?.parent_session_id;
}

/**
 * The session's last activity (ms): the latest believable of its `last_activity_at`, its newest
 * message and its start (Hermes rate-limits `last_activity_at`, so it alone can lag).
 */
export function lastActivity(conn: Connection, row: HermesSessionRow): number {
  const newest = conn.stmt(`SELECT max(${asNumber("timestamp")}) FROM messages WHERE session_id = ?`).pluck<number | null>().get(row.id);
  const times = [row.last_activity_at, newest, row.started_at].map(believableMillis).filter((time): time is number => time !== undefined);
  return times.length > 0 ? Math.max(...times) : 0;
}

/** A session row as this store's record (`origin: "hermes"`). Its system prompt is not read. */
export function toRecord(conn: Connection, schema: HermesSchema, row: HermesSessionRow): SessionRecord {
  const modelConfig = parseObject(row.model_config);
  const provider = typeof modelConfig.provider === "string" ? modelConfig.provider : row.billing_provider;
  const cwd = row.cwd ?? (typeof modelConfig.cwd === "string" ? modelConfig.cwd : null);
  return {
    id: row.id,
    origin: "hermes",
    source: row.source ?? "unknown",
    model: row.model,
    provider: provider ?? null,
    modelConfig,
    cwd,
    title: row.title,
    systemPrompt: null,
    parentSessionId: row.parent_session_id,
    startedAt: believableMillis(row.started_at) ?? 0,
    endedAt: believableMillis(row.ended_at) ?? null,
    endReason: row.end_reason,
    lastActiveAt: lastActivity(conn, row),
    messageCount: row.message_count ?? countVisible(conn, schema, row.id),
    toolCallCount: row.tool_call_count ?? 0,
    inputTokens: row.input_tokens ?? 0,
    outputTokens: row.output_tokens ?? 0,
    reasoningTokens: row.reasoning_tokens ?? 0,
    costUsd: row.actual_cost_usd ?? row.estimated_cost_usd ?? 0,
  };
}

/** Visible messages of a session (see hermes-schema `visibleMessage`). */
export function countVisible(conn: Connection, schema: HermesSchema, sessionId: string): number {
  return Number(conn.stmt(`SELECT count(*) FROM messages m WHERE m.session_id = ? AND ${visibleMessage(schema.messageColumns, "m")}`).pluck().get(sessionId));
}

/** Every visible message of a session in conversation order (id order, as Hermes scrolls). */
export function visibleRows(conn: Connection, schema: HermesSchema, sessionId: string): MessageRow[] {
  return conn
    .stmt<HermesMessageRow>(`SELECT ${messageColumnsSql(schema)} FROM messages m WHERE m.session_id = ? AND ${visibleMessage(schema.messageColumns, "m")} ORDER BY m.id`)
    .all(sessionId)
    .map(decodeHermesRow);
}

/** At most `limit` visible messages from the session's start or end, in conversation order. */
export function visibleEdge(conn: Connection, schema: HermesSchema, sessionId: string, edge: "first" | "last", limit: number): MessageRow[] {
  const rows = conn
    .stmt<HermesMessageRow>(
      `SELECT ${messageColumnsSql(schema)} FROM messages m WHERE m.session_id = ? AND ${visibleMessage(schema.messageColumns, "m")} ORDER BY m.id ${edge === "first" ? "ASC" : "DESC"} LIMIT ?`,
    )
    .all(sessionId, limit)
    .map(decodeHermesRow);
  return edge === "first" ? rows : rows.reverse();
}

/**
 * Up to `before` visible messages before `messageId`, the anchor, and up to `after` after it, in
 * order. Empty when the anchor is not a visible message of the session.
 */
export function visibleAround(conn: Connection, schema: HermesSchema, sessionId: string, messageId: number, before: number, after: number): MessageRow[] {
  const visible = visibleMessage(schema.messageColumns, "m");
  const select = `SELECT ${messageColumnsSql(schema)} FROM messages m WHERE m.session_id = ? AND ${visible}`;
  const anchor = conn.stmt<HermesMessageRow>(`${select} AND m.id = CAST(? AS INTEGER)`).get(sessionId, messageId);
  if (!anchor) return [];
  const earlier = conn.stmt<HermesMessageRow>(`${select} AND m.id < ? ORDER BY m.id DESC LIMIT ?`).all(sessionId, messageId, before).reverse();
  const later = conn.stmt<HermesMessageRow>(`${select} AND m.id > ? ORDER BY m.id ASC LIMIT ?`).all(sessionId, messageId, after);
  return [...earlier, anchor, ...later].map(decodeHermesRow);
}

/** The session's first visible user message on one line, cut to `max` characters ("" when none). */
export function hermesPreview(conn: Connection, schema: HermesSchema, sessionId: string, max = 120): string {
  const summaries = COMPACTION_PREFIXES.map((prefix) => `AND substr(ltrim(m.content), 1, ${prefix.length}) <> '${prefix}'`).join(" ");
  const row = conn
    .stmt<{ content: string | null }>(
      `SELECT ${asText("m.content")} AS content FROM messages m WHERE m.session_id = ? AND m.role = 'user' AND m.content IS NOT NULL AND ${visibleMessage(schema.messageColumns, "m")} ${summaries} ORDER BY m.id LIMIT 1`,
    )
    .get(sessionId);
  return cut(textOfContent(row?.content ?? null).replace(/\s+/g, " ").trim(), max);
}

/** A Hermes message row as a `MessageRow` (times in ms; JSON-encoded parts and tool calls decoded). */
export function decodeHermesRow(row: HermesMessageRow): MessageRow {
  return { id: row.id, sessionId: row.session_id, timestamp: believableMillis(row.timestamp) ?? 0, message: decodeHermesMessage(row) };
}

function decodeHermesMessage(row: HermesMessageRow): StoredMessage {
  switch (row.role) {
    case "system":
      return { role: "system", content: textOfContent(row.content) };
    case "assistant": {
      const message: Extract<StoredMessage, { role: "assistant" }> = { role: "assistant", content: row.content === null ? null : textOfContent(row.content) };
      const calls = toolCallsOf(row.tool_calls);
      if (calls.length > 0) message.tool_calls = calls;
      if (row.reasoning) message.reasoning = row.reasoning;
      if (row.finish_reason) message.finish_reason = row.finish_reason;
      return message;
    }
    case "tool": {
      const message: Extract<StoredMessage, { role: "tool" }> = { role: "tool", tool_call_id: row.tool_call_id ?? "", content: row.content ?? "" };
      if (row.tool_name) message.name = row.tool_name;
      return message;
    }
    default: {
      const parts = partsOf(row.content);
      return { role: "user", content: parts ?? row.content ?? "" };
    }
  }
}

/** Content that is a JSON list of multimodal parts, as parts; undefined for plain text. */
function partsOf(content: string | null): StoredContentPart[] | undefined {
  if (!content || !content.trimStart().startsWith("[")) return undefined;
  const value = parseJson(content);
  if (!Array.isArray(value) || value.length === 0 || !value.every((part) => part !== null && typeof part === "object" && typeof (part as { type?: unknown }).type === "string")) return undefined;
  const parts: StoredContentPart[] = [];
  for (const part of value as Array<Record<string, unknown>>) {
    if (part.type === "text" && typeof part.text === "string") parts.push({ type: "text", text: part.text });
    else if (part.type === "image_url") {
      const image = part.image_url as { url?: unknown } | string | undefined;
      const url = typeof image === "string" ? image : typeof image?.url === "string" ? image.url : "";
      parts.push({ type: "image_url", image_url: { url } });
    }
  }
  return parts;
}

/** The text of stored content: plain text, or the text parts of a JSON part list joined by newlines. */
export function textOfContent(content: string | null): string {
  const parts = partsOf(content);
  if (!parts) return content ?? "";
  return parts.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
}

/** Hermes' `tool_calls` JSON in the OpenAI shape (arguments as text); [] when absent or unreadable. */
function toolCallsOf(text: string | null): StoredToolCall[] {
  if (!text) return [];
  const value = parseJson(text);
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry, index): StoredToolCall[] => {
    if (entry === null || typeof entry !== "object") return [];
    const call = entry as { id?: unknown; function?: { name?: unknown; arguments?: unknown }; name?: unknown; arguments?: unknown };
    const name = call.function?.name ?? call.name;
    const args = call.function?.arguments ?? call.arguments ?? "";
    if (typeof name !== "string") return [];
    return [{ id: typeof call.id === "string" ? call.id : `call_${index}`, type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) } }];
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
