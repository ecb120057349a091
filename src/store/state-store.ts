/**
 * `StateStore`: the one object the rest of the program uses for state.db.
 *
 * Constructing one costs nothing: the native driver is loaded and the file opened (created,
 * migrated) on the first method call. Calls are synchronous and run on the caller's thread; each
 * write is one transaction, so concurrent processes sharing the file never see half a write and
 * lose nothing (they wait up to the busy timeout for each other).
 *
 * Errors: every method throws only HermesError — `internal` (with the file's path) when the
 * database cannot be opened or fails, `invalid_params` for bad input, `session_not_found` where
 * stated. A failed open is not cached: the next call tries again.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { canAccess } from "../shared/access.js";
import { errorMessage, HermesError, isHermesError } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { checkInBackground, ftsProblems } from "./integrity.js";
import { HermesHistory } from "./hermes-history.js";
import { FOREIGN_SCHEMA, NEWER_SCHEMA } from "./migrations.js";
import { messagesAround, readSession, recentSessions, type RecentSession, type SessionTranscript } from "./browse.js";
import { Connection } from "./connection.js";
import { appendMessages, deleteMessage, loadMessageRows, replaceMessage, sessionMeta } from "./messages.js";
import { DEFAULT_BUSY_TIMEOUT_MS, describeSqliteFailure, openStateDb, type OpenStateDbOptions } from "./open.js";
import { searchMessages, type SearchOptions, type SearchResult } from "./search.js";
import { isSqliteError, loadSqlite, type Database } from "./sqlite.js";
import * as sessions from "./sessions.js";
import type {
  ListSessionsOptions,
  MessageRow,
  NewSession,
  SessionMeta,
  SessionPage,
  SessionRecord,
  StoredMessage,
  UsageDelta,
} from "./types.js";

export interface StateStoreOptions extends OpenStateDbOptions {
  /** The clock for session and message times (ms); tests pin it. */
  now?: () => number;
  /**
   * How long after opening the database its `quick_check` starts on a worker thread (ms; off the
   * start-up path). Undefined: no check (short-lived commands).
   */
  integrityCheckDelayMs?: number;
}

export class StateStore {
  readonly path: string;
  private connection: Connection | undefined;
  /** Why the database is open read-only (a newer schema, a read-only folder); undefined when writable. */
  private writeRefusal: HermesError | undefined;
  private readonly options: StateStoreOptions;
  /** What the background integrity check found, until `takeDamage` hands it out. */
  private damage: string | undefined;
  private readonly hints = new WeakMap<Connection, string>();
  private readonly now: () => number;
  private history: HermesHistory | undefined;

  constructor(path: string, options: StateStoreOptions = {}) {
    this.path = path;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /**
   * A sentence for the user when the background check found the open database damaged; answered
   * once (undefined afterwards, and while nothing was found).
   */
  takeDamage(): string | undefined {
    const damage = this.damage;
    this.damage = undefined;
    return damage;
  }

  /** True once the database has been opened (for tests of laziness). */
  get isOpen(): boolean {
    return this.connection !== undefined;
  }

  /**
   * Python Hermes' sessions in `path`, read-only (see hermes-history.ts): a reader once this store
   * found `path` to be another program's and keeps its own sessions in `state-acp.db` — or before
   * it has opened anything (the reader's own probe then decides, quietly, whether `path` is
   * Hermes'). Undefined once this store writes `path` itself. Never throws, never opens this
   * store's database.
   */
  hermesHistory(): HermesHistory | undefined {
    if (this.connection && this.connection.path === this.path) return undefined;
    this.history ??= new HermesHistory(this.path);
    return this.history;
  }

  /** Closes the database (and the reader of Hermes' sessions); a later call opens it again. Never throws. */
  close(): void {
    this.history?.close();
    const connection = this.connection;
    this.connection = undefined;
    this.writeRefusal = undefined;
    try {
      connection?.close();
    } catch {
      // closing is best-effort; SQLite rolls back anything unfinished
    }
  }

  /**
   * What a new session will be written with. Writes nothing: the row appears with the session's
   * first message (`appendMessage`), so a session that is never prompted leaves no trace.
   * Throws HermesError("invalid_params") for a missing id, cwd, model or provider.
   */
  createSession(input: NewSession): SessionMeta {
    return sessionMeta(input);
  }

  /**
   * Appends one message to the session (creating its row from `meta` on the first message) and
   * updates its counters and last activity, in one transaction. Answers the message's id.
   */
  appendMessage(meta: SessionMeta, message: StoredMessage, toolDetails?: unknown): number {
    return this.run(() => appendMessages(this.conn(), meta, [message], this.now(), [toolDetails])[0]!);
  }

  /** `appendMessage` for several messages in one transaction; answers their ids in order. */
  appendMessages(meta: SessionMeta, messages: readonly StoredMessage[]): number[] {
    return this.run(() => appendMessages(this.conn(), meta, messages, this.now()));
  }

  /** Overwrites a stored message in place (see messages.replaceMessage). False when it is not stored. */
  replaceMessage(sessionId: string, messageId: number, message: StoredMessage): boolean {
    return this.run(() => replaceMessage(this.conn(), sessionId, messageId, message, this.now()));
  }

  /** Deletes one stored message of a session. False when it is not stored. */
  deleteMessage(sessionId: string, messageId: number): boolean {
    return this.run(() => deleteMessage(this.conn(), sessionId, messageId));
  }

  /**
   * Runs `body` (calls of this store's write methods) as one transaction: all of it is stored or
   * none. While it runs, a database locked by another process is waited for at most
   * `busyTimeoutMs` per statement (default: the store's busy timeout), so a caller on the event
   * loop can fail fast and retry later instead of blocking. Errors as for every method; a locked
   * database is HermesError("internal") with `data.locked` true.
   */
  together<T>(body: () => T, options: { busyTimeoutMs?: number } = {}): T {
    return this.run(() => {
      const wait = options.busyTimeoutMs;
      const conn = this.conn(wait);
      return wait === undefined ? conn.write(body) : conn.withBusyTimeout(wait, () => conn.write(body));
    });
  }

  /** Adds token counts of one model call to the session's totals. False when not stored. */
  updateUsage(id: string, usage: UsageDelta): boolean {
    return this.run(() => sessions.addUsage(this.conn(), id, usage));
  }

  /** Sets (or clears, with null) the session's title. False when not stored. */
  setTitle(id: string, title: string | null): boolean {
    return this.run(() => sessions.setTitle(this.conn(), id, title));
  }

  /**
   * Records a new model, provider or cwd, or the reasoning effort the user chose (null: none), for
   * a stored session. False when not stored.
   */
  updateSessionMeta(id: string, change: { model?: string; provider?: string; cwd?: string; reasoningEffort?: string | null }): boolean {
    return this.run(() => sessions.updateSessionMeta(this.conn(), id, change));
  }

  getSession(id: string): SessionRecord | undefined {
    return this.run(() => sessions.getSession(this.conn(), id));
  }

  /** The session's messages in conversation order (one SELECT); empty when not stored. */
  loadMessages(id: string): StoredMessage[] {
    return this.loadMessageRows(id).map((row) => row.message);
  }

  /** `loadMessages` with each message's database id and time. */
  loadMessageRows(id: string): MessageRow[] {
    return this.run(() => loadMessageRows(this.conn(), id));
  }

  /** Sessions newest first in pages (default 50) with `nextCursor`; see sessions.listSessions. */
  listSessions(options: ListSessionsOptions = {}): SessionPage {
    return this.run(() => sessions.listSessions(this.conn(), options));
  }

  /** Deletes the session and its messages (and their search entries). False when not stored. */
  deleteSession(id: string): boolean {
    return this.run(() => sessions.deleteSession(this.conn(), id));
  }

  /**
   * Deep-copies a stored session's history into a new session with `parent_session_id` set, in
   * one transaction. Throws HermesError("session_not_found") for an unknown source and
   * HermesError("invalid_params") when `newId` exists.
   */
  forkSession(sourceId: string, target: { newId: string; cwd: string }): SessionRecord {
    return this.run(() => sessions.forkSession(this.conn(), sourceId, target, this.now()));
  }

  /** Marks the session ended with `reason` (history kept). False when not stored. */
  endSession(id: string, reason: string): boolean {
    return this.run(() => sessions.endSession(this.conn(), id, reason, this.now()));
  }

  /** Discovery for `session_search`: one hit per session, see search.ts. */
  searchMessages(options: SearchOptions): SearchResult {
    return this.run(() => searchMessages(this.conn(), options));
  }

  /** Scroll for `session_search`: `window` (1–20, default 5) messages each side of one. */
  messagesAround(sessionId: string, messageId: number, window?: number): MessageRow[] {
    return this.run(() => messagesAround(this.conn(), sessionId, messageId, window));
  }

  /** Read for `session_search`: whole, or first 20 + last 10 with a count of those skipped. */
  readSession(sessionId: string): SessionTranscript | undefined {
    return this.run(() => readSession(this.conn(), sessionId));
  }

  /** Browse for `session_search`: recent sessions with titles and first-message previews. */
  recentSessions(options: { limit?: number; excludeSessionId?: string } = {}): RecentSession[] {
    return this.run(() => recentSessions(this.conn(), options));
  }

  /**
   * The open database. A state.db that another program created (Python Hermes keeps its own schema
   * in the same `~/.hermes/state.db`) is left untouched: this store then keeps its sessions in
   * `state-acp.db` beside it, and says so once in the log.
   */
  /**
   * Opens (creating and migrating when new) the database now, so that the first read or write
   * does not pay for it. Waits for no lock and never throws: when the database is locked, another
   * program's, read-only, damaged or newer, nothing changes, and the first use opens it and
   * reports its problem exactly as without this call.
   */
  prepare(): void {
    if (this.connection) return;
    try {
      this.adopt(openStateDb(this.path, { ...this.options, busyTimeoutMs: 0 }));
    } catch {
      // left to the first use
    }
  }

  /** The open, writable `db` of `path` as this store's connection (its integrity checked in the background). */
  private adopt(db: ReturnType<typeof openStateDb>): Connection {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    this.connection = new Connection(db, this.path);
    this.scheduleIntegrityCheck(this.path);
    return this.connection;
  }

  private conn(openBusyTimeoutMs?: number): Connection {
    if (this.connection) return this.connection;
    try {
      // Opening (and migrating) waits for a lock no longer than the caller would for a write.
      const busyTimeoutMs = openBusyTimeoutMs ?? this.options.busyTimeoutMs;
      return this.adopt(openStateDb(this.path, { ...this.options, ...(busyTimeoutMs !== undefined ? { busyTimeoutMs } : {}) }));
    } catch (error) {
      if (!isHermesError(error) || error.data?.reason !== FOREIGN_SCHEMA) {
        const newer = isHermesError(error) && error.data?.reason === NEWER_SCHEMA;
        const readOnly = newer ? openReadOnly(this.path) : readOnlySnapshot(this.path);
        if (!readOnly) throw error;
        log.warn(`${this.path} cannot be written (${errorMessage(error)}); its sessions are read only and new turns are not saved`);
        this.connection = new Connection(readOnly, this.path);
        this.writeRefusal = newer
          ? (error as HermesError)
          : new HermesError("internal", `state database ${this.path} is in a read-only folder: stored sessions can be read, new turns cannot be saved`);
        return this.connection;
      }
      const own = join(dirname(this.path), "state-acp.db");
      log.warn(`${this.path} belongs to another Hermes (its schema is not ours); hermes-acp keeps its sessions in ${own}`);
      this.connection = new Connection(openStateDb(own, this.options), own);
      this.scheduleIntegrityCheck(own);
    }
    return this.connection;
  }

  private scheduleIntegrityCheck(path: string): void {
    const delay = this.options.integrityCheckDelayMs;
    if (delay === undefined) return;
    setTimeout(() => void checkInBackground(path, (reason) => (this.damage = reason)), delay).unref();
  }

  /** What to do about a corruption error: whether the search index is what is damaged (checked once per connection). */
  private indexHint(connection: Connection): string {
    const known = this.hints.get(connection);
    if (known) return known;
    const hint = this.checkIndex(connection);
    this.hints.set(connection, hint);
    return hint;
  }

  private checkIndex(connection: Connection): string {
    try {
      const damaged = ftsProblems(connection.db);
      return damaged.length > 0
        ? "its search index is damaged; `hermes sessions repair` rebuilds it from the stored messages"
        : "run `hermes sessions repair` to check and repair it";
    } catch {
      return "run `hermes sessions repair` to check and repair it";
    }
  }

  /** Runs a store operation, turning anything but a HermesError into HermesError("internal"). */
  private run<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      if (error instanceof HermesError) throw error;
      // A database opened read-only after a refused open: the refusal says why better than SQLite.
      if (this.writeRefusal && isSqliteError(error) && error.code.startsWith("SQLITE_READONLY")) {
        throw new HermesError(this.writeRefusal.code, this.writeRefusal.message, { ...this.writeRefusal.data, permanent: true });
      }
      const damaged = isSqliteError(error) && (error.code.startsWith("SQLITE_CORRUPT") || error.code === "SQLITE_NOTADB");
      const hint = damaged && this.connection ? ` (${this.indexHint(this.connection)})` : "";
      const locked = isSqliteError(error) && (error.code.startsWith("SQLITE_BUSY") || error.code.startsWith("SQLITE_LOCKED"));
      throw new HermesError("internal", `state database ${this.path}: ${describeSqliteFailure(error)}${hint}`, {
        ...(isSqliteError(error) ? { sqliteCode: error.code } : {}),
        ...(locked ? { locked: true } : {}),
      });
    }
  }
}

/**
 * A read-only copy of `path` when its folder cannot be written (a read-only home): SQLite cannot
 * open a WAL database there even for reading (it must create the `-shm` file), so the database
 * and its `-wal` are copied to a private temp folder and the copy is opened read-only. Stored
 * history then lists, loads and searches; every write fails with SQLite's read-only error, which
 * the session recorder reports to the user. Undefined when the folder is writable (the open
 * failed for another reason) or there is nothing to read.
 */
function readOnlySnapshot(path: string): Database | undefined {
  if (!existsSync(path) || canAccess(dirname(path), "w")) return undefined;
  try {
    const dir = mkdtempSync(join(tmpdir(), "hermes-readonly-db-"));
    const copy = join(dir, basename(path));
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const Sqlite = loadSqlite();
    return new Sqlite(copy, { readonly: true, fileMustExist: true });
  } catch {
    return undefined;
  }
}

/** The database itself, read-only (a newer schema: what this version knows of it can still be read). */
function openReadOnly(path: string): Database | undefined {
  try {
    return new (loadSqlite())(path, { readonly: true, fileMustExist: true });
  } catch {
    return undefined;
  }
}
