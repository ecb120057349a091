/**
 * `HermesHistory`: the sessions Python Hermes keeps in `$HERMES_HOME/state.db`, read-only, so
 * `session_search` and `hermes sessions` see the history a Hermes user already has (CLI,
 * Telegram, Discord… each labelled with its `source`).
 *
 * Read-only for real: the file is opened with SQLite's read-only flag (`readonly`,
 * `fileMustExist`), nothing is ever written, migrated or checkpointed, and no schema is assumed:
 * `probeHermesSchema` looks at what the file holds first. (SQLite itself may create the empty
 * `-wal` / `-shm` companions of a WAL database that has none — the same ones Hermes creates — as
 * every reader of a WAL database needs them; the database file is never touched.)
 *
 * Never throws: a file that is absent or belongs to hermes-acp is simply no history; one that
 * cannot be opened or read (not a database, an unexpected schema, a read-only folder without the
 * `-shm` file, locked past a short wait) is "not available", said once in the log, and every
 * method answers empty, so a tool call still gets hermes-acp's own results. Hidden sources
 * (`HIDDEN_SOURCES`) and delegate children are never returned; nor are rewound or hidden rows.
 */
import { existsSync, statSync } from "node:fs";
import { log } from "../shared/logger.js";
import { READ_HEAD, READ_TAIL, type RecentSession, type SessionTranscript } from "./browse.js";
import { Connection } from "./connection.js";
import { countVisible, hermesPreview, parentOf, sessionColumnsSql, sessionRow, toRecord, visibleAround, visibleEdge, visibleRows, type HermesSessionRow } from "./hermes-rows.js";
import { probeHermesSchema, visibleSession, type HermesSchema } from "./hermes-schema.js";
import { searchHermes } from "./hermes-search.js";
import { rootFinder } from "./lineage.js";
import type { SearchHit, SearchOptions } from "./search.js";
import { realFolder } from "./sessions.js";
import { isSqliteError, loadSqlite } from "./sqlite.js";
import type { MessageRow, SessionRecord, SessionSummary } from "./types.js";

/** How long a read waits for Hermes' writer (ms): short, the event loop is waiting. */
const READ_BUSY_TIMEOUT_MS = 50;

type State = { kind: "closed" } | { kind: "locked"; reason: string } | { kind: "none" } | { kind: "open"; conn: Connection; schema: HermesSchema } | { kind: "unavailable"; reason: string };

/** What the reader found, for logs and tests. */
export type HermesHistoryStatus =
  | { kind: "absent" }
  | { kind: "not_hermes" }
  | { kind: "available"; version: number | null; words: boolean; trigram: boolean }
  | { kind: "unavailable"; reason: string }
  /** Locked by Hermes when last looked at; looked at again on the next call. */
  | { kind: "locked"; reason: string };

export class HermesHistory {
  private state: State = { kind: "closed" };
  /** Which file the state was found in (device and inode), so a file replaced since is looked at afresh. */
  private identity: string | undefined;
  private readonly reported = new Set<string>();

  constructor(
    /** `$HERMES_HOME/state.db`. */
    readonly path: string,
  ) {}

  /** Opens and probes the file on first call (absent files are looked for again on the next). */
  status(): HermesHistoryStatus {
    const state = this.open();
    if (state.kind === "open") return { kind: "available", version: state.schema.version, words: state.schema.words, trigram: state.schema.trigram };
    if (state.kind === "unavailable" || state.kind === "locked") return { kind: state.kind, reason: state.reason };
    return state.kind === "none" ? { kind: "not_hermes" } : { kind: "absent" };
  }

  /** A visible session (hidden sources and delegate children are not), undefined when Hermes has none such. */
  getSession(id: string): SessionRecord | undefined {
    return this.read("reading a session", undefined, (conn, schema) => {
      const visible = conn.stmt(`SELECT 1 FROM sessions s WHERE s.id = ? AND ${visibleSession(schema.sessionColumns, "s")}`).get(id);
      const row = visible ? sessionRow(conn, schema, id) : undefined;
      return row ? toRecord(conn, schema, row) : undefined;
    });
  }

  /** Every visible message of a visible session in order (for export); empty when unknown. */
  messageRows(id: string): MessageRow[] {
    if (!this.getSession(id)) return [];
    return this.read("reading messages", [], (conn, schema) => visibleRows(conn, schema, id));
  }

  /** Scroll: `window` (1–20, default 5) visible messages each side of one; empty when not there. */
  messagesAround(sessionId: string, messageId: number, window = 5): MessageRow[] {
    const size = Number.isFinite(window) ? Math.min(20, Math.max(1, Math.floor(window))) : 5;
    if (!Number.isInteger(messageId) || !this.getSession(sessionId)) return [];
    return this.read("reading messages", [], (conn, schema) => visibleAround(conn, schema, sessionId, messageId, size, size));
  }

  /** Read: the whole session, or its first 20 and last 10 visible messages; undefined when unknown. */
  readSession(sessionId: string): SessionTranscript | undefined {
    const session = this.getSession(sessionId);
    if (!session) return undefined;
    return this.read("reading a session", undefined, (conn, schema) => {
      const total = countVisible(conn, schema, sessionId);
      if (total <= READ_HEAD + READ_TAIL) return { session, messages: visibleRows(conn, schema, sessionId), total, skipped: 0 };
      const head = visibleEdge(conn, schema, sessionId, "first", READ_HEAD);
      const tail = visibleEdge(conn, schema, sessionId, "last", READ_TAIL);
      return { session, messages: [...head, ...tail], total, skipped: total - head.length - tail.length, gapAfterId: head[head.length - 1]!.id };
    });
  }

  /** Discovery (see hermes-search.ts); [] when unavailable. */
  search(options: SearchOptions): SearchHit[] {
    return this.read("searching", [], (conn, schema) => searchHermes(conn, schema, options, (problem) => this.report(problem)));
  }

  /**
   * Browse: the most recently active conversations (1–50, default 10), one per lineage, its most
   * recently active session standing for it, titled with its root's title.
   */
  recentSessions(options: { limit?: number } = {}): RecentSession[] {
    const limit = Math.min(50, Math.max(1, Math.floor(options.limit ?? 10)));
    return this.read("listing sessions", [], (conn, schema) => {
      const rootOf = rootFinder((id) => parentOf(conn, schema, id));
      const byRoot = new Map<string, { record: SessionRecord; root: string }>();
      for (const record of this.candidates(conn, schema, limit * 4 + 20)) {
        const root = rootOf(record.id);
        const known = byRoot.get(root);
        if (!known || known.record.lastActiveAt < record.lastActiveAt) byRoot.set(root, { record, root });
      }
      const rootTitle = (root: string): string | null => sessionRow(conn, schema, root)?.title ?? null;
      // a root of a hidden source hides its lineage; a deleted root hides nothing
      const rootVisible = (root: string): boolean => {
        const row = conn.stmt<{ visible: number }>(`SELECT (${visibleSession(schema.sessionColumns, "s")}) AS visible FROM sessions s WHERE s.id = ?`).get(root);
        return row === undefined || row.visible === 1;
      };
      return [...byRoot.values()]
        .filter(({ root }) => rootVisible(root))
        .sort((a, b) => b.record.lastActiveAt - a.record.lastActiveAt)
        .slice(0, limit)
        .map(({ record, root }) => ({
          id: record.id,
          rootSessionId: root,
          origin: "hermes",
          title: (root === record.id ? record.title : rootTitle(root)) ?? record.title,
          preview: hermesPreview(conn, schema, record.id),
          source: record.source,
          cwd: record.cwd,
          startedAt: record.startedAt,
          lastActiveAt: record.lastActiveAt,
          messageCount: record.messageCount,
        }));
    });
  }

  /**
   * `hermes sessions list`: visible sessions one by one (forks and continuations included, each
   * with its parent), most recently active first, at most `limit`; `cwd` keeps those whose folder
   * is the same real folder. `more` when others were left out.
   */
  listSessions(options: { limit: number; cwd?: string }): { sessions: SessionSummary[]; more: boolean } {
    return this.read("listing sessions", { sessions: [], more: false }, (conn, schema) => {
      const wanted = options.cwd === undefined ? undefined : realFolder(options.cwd);
      const all = this.candidates(conn, schema, wanted === undefined ? options.limit + 1 : Number.MAX_SAFE_INTEGER).filter(
        (record) => wanted === undefined || (record.cwd !== null && (record.cwd === wanted || realFolder(record.cwd) === wanted)),
      );
      const sessions = all.slice(0, options.limit).map(
        (record): SessionSummary => ({
          id: record.id,
          origin: "hermes",
          source: record.source,
          cwd: record.cwd,
          title: record.title,
          model: record.model,
          startedAt: record.startedAt,
          lastActiveAt: record.lastActiveAt,
          messageCount: record.messageCount,
          parentSessionId: record.parentSessionId,
        }),
      );
      return { sessions, more: all.length > options.limit };
    });
  }

  /** Closes the file; a later call opens it again. Never throws. */
  close(): void {
    if (this.state.kind === "open") {
      try {
        this.state.conn.close();
      } catch {
        // closing a read-only handle is best-effort
      }
    }
    this.state = { kind: "closed" };
  }

  /**
   * Up to `scan` visible sessions with messages, newest by their recorded activity, as records
   * sorted by their real last activity (newest message included).
   */
  private candidates(conn: Connection, schema: HermesSchema, scan: number): SessionRecord[] {
    const has = (name: string): boolean => schema.sessionColumns.has(name);
    const recency = `coalesce(${[has("last_activity_at") ? "s.last_activity_at" : "", has("ended_at") ? "s.ended_at" : "", "s.started_at"].filter(Boolean).join(", ")})`;
    const rows = conn
      .stmt<HermesSessionRow>(
        `SELECT ${sessionColumnsSql(schema)} FROM sessions s WHERE ${visibleSession(schema.sessionColumns, "s")}
         AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) ORDER BY ${recency} DESC, s.id DESC LIMIT ?`,
      )
      .all(scan);
    return rows
      .map((row) => toRecord(conn, schema, row))
      .sort((a, b) => b.lastActiveAt - a.lastActiveAt || (a.id < b.id ? 1 : -1));
  }

  /** Runs a read on the open file; `fallback` when there is none or the read fails (said once). */
  private read<T>(what: string, fallback: T, body: (conn: Connection, schema: HermesSchema) => T): T {
    const state = this.open();
    if (state.kind !== "open") return fallback;
    try {
      return body(state.conn, state.schema);
    } catch (error) {
      this.report(`${what} failed (${isSqliteError(error) ? `${error.message}, ${error.code}` : String(error)}); its sessions are left out of this answer`);
      return fallback;
    }
  }

  /**
   * The state for the file at `path` now: a file replaced since it was opened (Hermes restoring a
   * backup, a VACUUM INTO and rename, a new install) or removed is let go and, when there is one,
   * looked at afresh; an open handle would go on reading the old file's pages.
   */
  private open(): State {
    if (this.state.kind !== "closed" && this.state.kind !== "locked" && fileIdentity(this.path) !== this.identity) this.close();
    if (this.state.kind === "closed" || this.state.kind === "locked") {
      if (!existsSync(this.path)) return this.state;
      this.identity = fileIdentity(this.path);
      this.state = this.connect();
    }
    return this.state;
  }

  private connect(): State {
    let db;
    try {
      db = new (loadSqlite())(this.path, { readonly: true, fileMustExist: true, timeout: READ_BUSY_TIMEOUT_MS });
    } catch (error) {
      return this.unavailable(isSqliteError(error) ? `${error.message} (${error.code})` : String(error));
    }
    const probe = probeHermesSchema(db);
    if (probe.kind !== "hermes") {
      db.close();
      if (probe.kind === "not_hermes") return { kind: "none" };
      if (probe.transient) {
        // Hermes holds the file for a moment (a checkpoint, a VACUUM): look again on the next call
        this.report(`it is locked (${probe.reason}); its sessions are left out until it is free`);
        return { kind: "locked", reason: probe.reason };
      }
      return this.unavailable(probe.reason);
    }
    const { schema } = probe;
    log.debug(
      `${this.path}: Python Hermes' sessions are searched read-only (schema ${schema.version ?? "unknown"}; ` +
        `${schema.words ? "word index" : "no word index, substring search"}${schema.trigram ? ", trigram index" : ""})`,
    );
    return { kind: "open", conn: new Connection(db, this.path), schema };
  }

  private unavailable(reason: string): State {
    if (reason.includes("SQLITE_CANTOPEN")) reason += "; a WAL database in a folder hermes-acp cannot write needs its -shm file, which Hermes creates while it runs";
    log.warn(`${this.path} (Python Hermes' sessions) is not available: ${reason}; only hermes-acp's own sessions are searched`);
    return { kind: "unavailable", reason };
  }

  /** Logs a problem once per reader (a failing file must not flood the log). */
  private report(problem: string): void {
    if (this.reported.has(problem)) return;
    this.reported.add(problem);
    log.warn(`${this.path} (Python Hermes' sessions): ${problem}`);
  }
}

/** `<device>:<inode>` of the file at `path`, undefined when there is none. */
function fileIdentity(path: string): string | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}
