/**
 * Session rows: read, list (newest first, keyset pages), title, usage, metadata, end, delete, fork.
 * Every write is one transaction.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { HermesError } from "../shared/errors.js";
import { parseObject, toMillis, toSeconds } from "./codec.js";
import type { Connection } from "./connection.js";
import type { ListSessionsOptions, SessionPage, SessionRecord, SessionSummary, UsageDelta } from "./types.js";

export interface SessionDbRow {
  id: string;
  source: string;
  model: string | null;
  model_config: string | null;
  cwd: string | null;
  title: string | null;
  system_prompt: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  last_active: number;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  /** Absent in rows of databases before migration 3 (never: migrations run first) and in Hermes' rows. */
  cost_usd?: number | null;
}

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

export function toSessionRecord(row: SessionDbRow): SessionRecord {
  const modelConfig = parseObject(row.model_config);
  return {
    id: row.id,
    source: row.source,
    model: row.model,
    provider: typeof modelConfig.provider === "string" ? modelConfig.provider : null,
    modelConfig,
    cwd: row.cwd,
    title: row.title,
    systemPrompt: row.system_prompt,
    parentSessionId: row.parent_session_id,
    startedAt: toMillis(row.started_at),
    endedAt: row.ended_at === null ? null : toMillis(row.ended_at),
    endReason: row.end_reason,
    lastActiveAt: toMillis(row.last_active),
    messageCount: row.message_count,
    toolCallCount: row.tool_call_count,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    reasoningTokens: row.reasoning_tokens,
    costUsd: typeof row.cost_usd === "number" && Number.isFinite(row.cost_usd) && row.cost_usd > 0 ? row.cost_usd : 0,
  };
}

export function getSession(conn: Connection, id: string): SessionRecord | undefined {
  const row = conn.stmt<SessionDbRow>("SELECT * FROM sessions WHERE id = ?").get(id);
  return row ? toSessionRecord(row) : undefined;
}

/** Sets the title; false when the session is not stored. */
export function setTitle(conn: Connection, id: string, title: string | null): boolean {
  return conn.write(() => conn.stmt("UPDATE sessions SET title = ? WHERE id = ?").run(title, id).changes > 0);
}

/** Adds token counts (deltas, not totals); false when the session is not stored. */
export function addUsage(conn: Connection, id: string, usage: UsageDelta): boolean {
  const count = (value: number | undefined): number => (Number.isFinite(value) && value! > 0 ? Math.round(value!) : 0);
  const cost = Number.isFinite(usage.cost) && usage.cost! > 0 ? usage.cost! : 0;
  return conn.write(
    () =>
      conn
        .stmt(
          "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, reasoning_tokens = reasoning_tokens + ?, cost_usd = cost_usd + ? WHERE id = ?",
        )
        .run(count(usage.input), count(usage.output), count(usage.reasoning), cost, id).changes > 0,
  );
}

/** Replaces model / provider / cwd (each only when given); false when the session is not stored. */
export function updateSessionMeta(
  conn: Connection,
  id: string,
  change: { model?: string; provider?: string; cwd?: string; reasoningEffort?: string | null },
): boolean {
  return conn.write(() => {
    const row = conn.stmt<{ model_config: string | null }>("SELECT model_config FROM sessions WHERE id = ?").get(id);
    if (!row) return false;
    const config = parseObject(row.model_config);
    if (change.provider !== undefined) config.provider = change.provider;
    if (change.cwd !== undefined) config.cwd = change.cwd;
    if (change.reasoningEffort === null) delete config.reasoning_effort;
    else if (change.reasoningEffort !== undefined) config.reasoning_effort = change.reasoningEffort;
    conn
      .stmt("UPDATE sessions SET model = coalesce(?, model), cwd = coalesce(?, cwd), model_config = ? WHERE id = ?")
      .run(change.model ?? null, change.cwd ?? null, JSON.stringify(config), id);
    return true;
  });
}

/** Marks the session ended (time and reason); false when not stored. A later append reopens it. */
export function endSession(conn: Connection, id: string, reason: string, nowMs: number): boolean {
  return conn.write(() => conn.stmt("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?").run(toSeconds(nowMs), reason, id).changes > 0);
}

/** Deletes the session; its messages and their index entries go with it. False when not stored. */
export function deleteSession(conn: Connection, id: string): boolean {
  return conn.write(() => conn.stmt("DELETE FROM sessions WHERE id = ?").run(id).changes > 0);
}

/**
 * Copies session `sourceId` and all its messages (same order, times and content) into a new
 * session `newId` with `cwd`, `parent_session_id = sourceId`, fresh start / activity times and
 * zero token counts. One transaction. Throws HermesError("session_not_found") for an unknown
 * source and HermesError("invalid_params") when `newId` is taken.
 */
export function forkSession(conn: Connection, sourceId: string, target: { newId: string; cwd: string }, nowMs: number): SessionRecord {
  return conn.write(() => {
    if (!conn.stmt("SELECT 1 FROM sessions WHERE id = ?").get(sourceId)) {
      throw new HermesError("session_not_found", `session ${sourceId} not found`);
    }
    if (conn.stmt("SELECT 1 FROM sessions WHERE id = ?").get(target.newId)) {
      throw new HermesError("invalid_params", `session ${target.newId} already exists`);
    }
    const now = toSeconds(nowMs);
    conn
      .stmt(
        `INSERT INTO sessions (id, source, model, model_config, cwd, title, system_prompt, parent_session_id, started_at, last_active, tool_call_count)
         SELECT @new, source, model,
           CASE WHEN json_valid(model_config) THEN json_set(model_config, '$.cwd', @cwd) ELSE json_object('cwd', @cwd) END,
           @cwd, title, system_prompt, id, @now, @now, tool_call_count
         FROM sessions WHERE id = @source`,
      )
      .run({ new: target.newId, source: sourceId, cwd: target.cwd, now });
    const copied = conn
      .stmt(
        `INSERT INTO messages (session_id, role, content, content_parts, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_details, codex_reasoning_items)
         SELECT ?, role, content, content_parts, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_details, codex_reasoning_items
         FROM messages WHERE session_id = ? ORDER BY id`,
      )
      .run(target.newId, sourceId).changes;
    conn.stmt("UPDATE sessions SET message_count = ? WHERE id = ?").run(copied, target.newId);
    return getSession(conn, target.newId)!;
  });
}

/** A folder as a real path (symlinks and `..` resolved); lexically normalised when it does not exist. */
export function realFolder(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

const SUMMARY_COLUMNS = "id, source, cwd, title, model, started_at, last_active, message_count, parent_session_id";

type SummaryRow = Pick<SessionDbRow, "id" | "source" | "cwd" | "title" | "model" | "started_at" | "last_active" | "message_count" | "parent_session_id">;

function toSummary(row: SummaryRow): SessionSummary {
  return {
    id: row.id,
    source: row.source,
    cwd: row.cwd,
    title: row.title,
    model: row.model,
    startedAt: toMillis(row.started_at),
    lastActiveAt: toMillis(row.last_active),
    messageCount: row.message_count,
    parentSessionId: row.parent_session_id,
  };
}

/**
 * Stored sessions, most recently active first (ties: id descending), one page at a time.
 * `cwd` matches stored cwds that name the same real folder. A `cursor` that is not a session of
 * the filtered list gives an empty page. `nextCursor` is set when more sessions follow.
 */
export function listSessions(conn: Connection, options: ListSessionsOptions = {}): SessionPage {
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(options.limit ?? DEFAULT_PAGE_SIZE)));
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (options.source !== undefined) {
    where.push("source = @source");
    params.source = options.source;
  }
  if (options.cwd !== undefined) {
    const cwds = matchingCwds(conn, options.cwd);
    if (cwds.length === 0) return { sessions: [] };
    where.push("cwd IN (SELECT value FROM json_each(@cwds))");
    params.cwds = JSON.stringify(cwds);
  }
  if (options.cursor !== undefined) {
    const cursor = conn
      .stmt<{ last_active: number; id: string }>(`SELECT last_active, id FROM sessions WHERE ${[...where, "id = @cursor"].join(" AND ")}`)
      .get({ ...params, cursor: options.cursor });
    if (!cursor) return { sessions: [] };
    where.push("(last_active < @after_active OR (last_active = @after_active AND id < @after_id))");
    params.after_active = cursor.last_active;
    params.after_id = cursor.id;
  }
  const sql = `SELECT ${SUMMARY_COLUMNS} FROM sessions ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY last_active DESC, id DESC LIMIT @limit`;
  const rows = conn.stmt<SummaryRow>(sql).all({ ...params, limit: limit + 1 });
  const sessions = rows.slice(0, limit).map(toSummary);
  return rows.length > limit ? { sessions, nextCursor: sessions[sessions.length - 1]!.id } : { sessions };
}

/** The stored cwd spellings that resolve to the same real folder as `cwd`. */
function matchingCwds(conn: Connection, cwd: string): string[] {
  const wanted = realFolder(cwd);
  const stored = conn.stmt("SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL").pluck<string>().all();
  return stored.filter((candidate) => candidate === wanted || realFolder(candidate) === wanted);
}
