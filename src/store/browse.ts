/**
 * The non-discovery shapes of `session_search`: scroll (messages around one), read (a whole
 * session, or its two ends when long) and browse (recent sessions with previews).
 */
import { toMillis } from "./codec.js";
import type { Connection } from "./connection.js";
import { messageRowsAround, messageRowsAtEdge, loadMessageRows } from "./messages.js";
import { sessionPreview } from "./search.js";
import { getSession } from "./sessions.js";
import type { MessageRow, SessionRecord } from "./types.js";

export const READ_HEAD = 20;
export const READ_TAIL = 10;

/**
 * Up to `window` messages each side of `messageId` in `sessionId` plus the anchor, in order.
 * `window` is clamped to 1–20 (default 5). Empty when the session does not hold that message.
 */
export function messagesAround(conn: Connection, sessionId: string, messageId: number, window = 5): MessageRow[] {
  const size = Number.isFinite(window) ? Math.min(20, Math.max(1, Math.floor(window))) : 5;
  const rows = messageRowsAround(conn, sessionId, messageId, size, size);
  return rows.some((row) => row.id === messageId) ? rows : [];
}

export interface SessionTranscript {
  session: SessionRecord;
  /** All messages, or the first 20 and last 10 when the session holds more than 30. */
  messages: MessageRow[];
  total: number;
  /** Messages left out between the head and the tail (0 when complete). */
  skipped: number;
  /** When messages were skipped: the last id shown before the gap (scroll from here). */
  gapAfterId?: number;
}

/** A session for reading; undefined when not stored. */
export function readSession(conn: Connection, sessionId: string): SessionTranscript | undefined {
  const session = getSession(conn, sessionId);
  if (!session) return undefined;
  const total = Number(conn.stmt("SELECT count(*) FROM messages WHERE session_id = ?").pluck().get(sessionId));
  if (total <= READ_HEAD + READ_TAIL) return { session, messages: loadMessageRows(conn, sessionId), total, skipped: 0 };
  const head = messageRowsAtEdge(conn, sessionId, "first", READ_HEAD);
  const tail = messageRowsAtEdge(conn, sessionId, "last", READ_TAIL);
  return { session, messages: [...head, ...tail], total, skipped: total - head.length - tail.length, gapAfterId: head[head.length - 1]!.id };
}

export interface RecentSession {
  id: string;
  title: string | null;
  /** First user message, one line, cut to 120 characters. */
  preview: string;
  source: string;
  cwd: string | null;
  startedAt: number;
  lastActiveAt: number;
  messageCount: number;
}

/** The most recently active sessions (limit clamped to 1–50, default 10), newest first. */
export function recentSessions(conn: Connection, options: { limit?: number; excludeSessionId?: string } = {}): RecentSession[] {
  const limit = Math.min(50, Math.max(1, Math.floor(options.limit ?? 10)));
  const rows = conn
    .stmt<{ id: string; title: string | null; source: string; cwd: string | null; started_at: number; last_active: number; message_count: number }>(
      `SELECT id, title, source, cwd, started_at, last_active, message_count FROM sessions
       WHERE id IS NOT @exclude ORDER BY last_active DESC, id DESC LIMIT @limit`,
    )
    .all({ exclude: options.excludeSessionId ?? null, limit });
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    preview: sessionPreview(conn, row.id),
    source: row.source,
    cwd: row.cwd,
    startedAt: toMillis(row.started_at),
    lastActiveAt: toMillis(row.last_active),
    messageCount: row.message_count,
  }));
}
