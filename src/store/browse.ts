/**
 * The non-discovery shapes of `session_search`: scroll (messages around one), read (a whole
 * session, or its two ends when long) and browse (recent sessions with previews).
 */
import { toMillis } from "./codec.js";
import type { Connection } from "./connection.js";
import { messageRowsAround, messageRowsAtEdge, loadMessageRows } from "./messages.js";
import { ancestry, HIDDEN_SOURCES, rootFinder } from "./lineage.js";
import { parentLookup, sessionPreview } from "./search.js";
import { getSession } from "./sessions.js";
import type { HistoryOrigin, MessageRow, SessionRecord } from "./types.js";

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
  /** The lineage's most recently active session. */
  id: string;
  /** The first session of its lineage; `id` when it has no parent. */
  rootSessionId: string;
  /** Set for a session of Python Hermes' state.db. */
  origin?: HistoryOrigin;
  /** The lineage root's title, else the session's own. */
  title: string | null;
  /** First user message, one line, cut to 120 characters. */
  preview: string;
  source: string;
  cwd: string | null;
  startedAt: number;
  lastActiveAt: number;
  messageCount: number;
}

/**
 * The most recently active conversations (limit clamped to 1–50, default 10), newest first: one
 * row per lineage (a session and its forks), its most recently active session standing for it.
 * `excludeSessionId` (the caller's live session) and its ancestors, whose history it holds, and
 * sessions of hidden sources (`HIDDEN_SOURCES`) are left out.
 */
export function recentSessions(conn: Connection, options: { limit?: number; excludeSessionId?: string } = {}): RecentSession[] {
  const limit = Math.min(50, Math.max(1, Math.floor(options.limit ?? 10)));
  const parentOf = parentLookup(conn);
  const rootOf = rootFinder(parentOf);
  const excluded = new Set(options.excludeSessionId ? ancestry(options.excludeSessionId, parentOf) : []);
  const statement = conn.stmt<{ id: string; title: string | null; source: string; cwd: string | null; started_at: number; last_active: number; message_count: number }>(
    "SELECT id, title, source, cwd, started_at, last_active, message_count FROM sessions ORDER BY last_active DESC, id DESC",
  );
  const picked: RecentSession[] = [];
  const roots = new Set<string>();
  const titleOf = conn.stmt<{ title: string | null }>("SELECT title FROM sessions WHERE id = ?");
  // rows arrive most recent first, so a lineage's first row is its most recent session
  for (const row of statement.iterate()) {
    if (excluded.has(row.id) || HIDDEN_SOURCES.includes(row.source)) continue;
    const root = rootOf(row.id);
    if (roots.has(root)) continue;
    roots.add(root);
    const rootTitle = root === row.id ? row.title : (titleOf.get(root)?.title ?? null);
    picked.push({
      id: row.id,
      rootSessionId: root,
      title: rootTitle ?? row.title,
      preview: sessionPreview(conn, row.id),
      source: row.source,
      cwd: row.cwd,
      startedAt: toMillis(row.started_at),
      lastActiveAt: toMillis(row.last_active),
      messageCount: row.message_count,
    });
    if (picked.length >= limit) break;
  }
  return picked;
}
