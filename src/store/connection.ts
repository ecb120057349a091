/**
 * An open state.db with a cache of prepared statements. Every store module works through one of
 * these; statements are prepared once per connection and reused (the fast path for appends).
 */
import type { Database, Statement } from "./sqlite.js";

export class Connection {
  private readonly statements = new Map<string, Statement<unknown>>();
  private readonly rawStatements = new Map<string, Statement<unknown[]>>();
  /** The connection's busy timeout (ms), read on first need; only `withBusyTimeout` changes it. */
  private busyMs: number | undefined;

  constructor(
    readonly db: Database,
    /** The database file, for error messages. */
    readonly path: string,
  ) {}

  /** The prepared statement for `sql`, prepared on first use. Throws SQLite errors (bad SQL). */
  stmt<Row = Record<string, unknown>>(sql: string): Statement<Row> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown>(sql);
      this.statements.set(sql, statement);
    }
    return statement as Statement<Row>;
  }

  /**
   * The prepared statement for `sql` answering rows as arrays of column values (the driver's raw
   * mode), prepared on first use and cached apart from `stmt`'s. Throws SQLite errors (bad SQL).
   */
  rawStmt(sql: string): Statement<unknown[]> {
    let statement = this.rawStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown>(sql).raw(true);
      this.rawStatements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `body` in a write transaction: `BEGIN IMMEDIATE`, so the write lock is taken up front and
   * a busy database is waited for (busy timeout) instead of failing on the read→write upgrade;
   * a savepoint when already inside a transaction. Commits when `body` returns, rolls back and
   * rethrows when it throws.
   */
  write<T>(body: () => T): T {
    return this.db.transaction(body).immediate();
  }

  /**
   * Runs `body` with the busy timeout set to `ms` (floored at 0) and restores the previous one
   * after, also when `body` throws; nothing is set when it already is `ms`. The pragma statements
   * are cached per value (each run still takes effect: SQLite re-prepares a pragma when it runs).
   */
  withBusyTimeout<T>(ms: number, body: () => T): T {
    const normal = (this.busyMs ??= Number(this.db.pragma("busy_timeout", { simple: true })));
    const wanted = Math.max(0, Math.floor(ms));
    if (wanted === normal) return body();
    this.setBusyTimeout(wanted);
    try {
      return body();
    } finally {
      this.setBusyTimeout(normal);
    }
  }

  private setBusyTimeout(ms: number): void {
    this.stmt(`PRAGMA busy_timeout = ${ms}`).get();
    this.busyMs = ms;
  }

  close(): void {
    this.statements.clear();
    this.rawStatements.clear();
    if (this.db.open) this.db.close();
  }
}
