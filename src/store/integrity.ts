/**
 * Checking and repairing state.db.
 *
 * - `checkInBackground`: SQLite's `quick_check` of a database just opened, run on a worker thread
 *   with its own read-only connection (it reads the whole file: ~280 ms for 100,000 messages,
 *   which must not stall the event loop). Reports problems through a callback; never throws.
 * - `ftsProblems`: the full-text indexes' own integrity check, cheap enough to run after a write
 *   failed with a corruption error, to tell a damaged index (rebuildable) from damaged tables.
 * - `repairDatabase`: what `hermes sessions repair` does (rebuild the indexes, check again), and
 *   `salvageDatabase`: copy every readable session and message into a fresh file, keeping the
 *   damaged one beside it (only when the user asks).
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { describeSqliteFailure, openStateDb } from "./open.js";
import { isSqliteError, loadSqlite, type Database } from "./sqlite.js";

/** The full-text index tables (both rebuilt from `messages` by a repair). */
const FTS_TABLES = ["messages_fts", "messages_fts_trigram"] as const;

/** What a check found: "ok", or the problems SQLite named (at most a few). */
export type CheckResult = { ok: true } | { ok: false; problems: string[] };

/**
 * `PRAGMA quick_check` of an open database: page and b-tree structure, not index contents. A page
 * too damaged for the check to go on counts as a problem; other SQLite errors (locked) are thrown.
 */
export function quickCheck(db: Database, maxProblems = 5): CheckResult {
  let rows: Array<{ quick_check: string }>;
  try {
    rows = db.pragma(`quick_check(${maxProblems})`) as Array<{ quick_check: string }>;
  } catch (error) {
    if (isSqliteError(error) && (error.code.startsWith("SQLITE_CORRUPT") || error.code === "SQLITE_NOTADB")) return { ok: false, problems: [error.message] };
    throw error;
  }
  const problems = rows.map((row) => row.quick_check).filter((text) => text !== "ok");
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}

/** The FTS5 indexes' integrity check: the names of the indexes that are damaged (empty when all are fine). */
export function ftsProblems(db: Database): string[] {
  const damaged: string[] = [];
  for (const table of FTS_TABLES) {
    try {
      db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`).run();
    } catch {
      damaged.push(table);
    }
  }
  return damaged;
}

const CHECK_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
let db;
try {
  db = new (require(workerData.driver))(workerData.path, { readonly: true, fileMustExist: true, timeout: 1000 });
  const rows = db.pragma("quick_check(5)");
  parentPort.postMessage({ problems: rows.map((row) => row.quick_check).filter((text) => text !== "ok") });
} catch (error) {
  parentPort.postMessage({ problems: [String(error && error.message || error)], failed: true });
} finally {
  try { db && db.close(); } catch {}
}`;

/**
 * Runs `quick_check` of the database at `path` on a worker thread and calls `onDamage` with a
 * sentence naming the problems when it finds any. Does not keep the process alive; never throws
 * or rejects (a check that cannot run is logged and forgotten). Resolves when the check is over.
 */
export function checkInBackground(path: string, onDamage: (reason: string) => void): Promise<void> {
  let worker: Worker;
  try {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    worker = new Worker(CHECK_WORKER, { eval: true, workerData: { path, driver }, resourceLimits: { maxOldGenerationSizeMb: 32 } });
  } catch (error) {
    log.debug(`integrity check of ${path} not started: ${errorMessage(error)}`);
    return Promise.resolve();
  }
  worker.unref();
  const over = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.once("message", (result: { problems: string[]; failed?: boolean }) => {
    if (result.problems.length === 0) {
      log.debug(`integrity check of ${path}: ok`);
      return;
    }
    if (result.failed && !/malformed|corrupt|not a database/i.test(result.problems[0] ?? "")) {
      log.debug(`integrity check of ${path} could not run: ${result.problems[0]}`);
      return;
    }
    const reason = `state database ${path} is damaged (${result.problems.slice(0, 2).join("; ")}); run \`hermes sessions repair\``;
    log.warn(reason);
    onDamage(reason);
  });
  worker.once("error", (error) => log.debug(`integrity check of ${path} failed: ${errorMessage(error)}`));
  return over;
}

export interface RepairReport {
  /** What was wrong before the repair ("ok" when nothing). */
  before: CheckResult;
  /** The indexes that were damaged (and have been rebuilt). */
  rebuilt: string[];
  /** The check after the repair; not ok = the tables themselves are damaged (`salvageDatabase`). */
  after: CheckResult;
}

/**
 * Checks the database at `path` and rebuilds both full-text indexes from the messages (always:
 * a rebuild also fixes index damage `quick_check` cannot see), then checks again. The sessions and
 * messages are not changed. Throws HermesError("internal") when the file cannot be opened at all
 * (not a database, unreadable).
 */
export function repairDatabase(path: string): RepairReport {
  const db = openStateDb(path);
  try {
    const before = quickCheck(db);
    const rebuilt = ftsProblems(db);
    try {
      db.transaction(() => {
        for (const table of FTS_TABLES) db.prepare(`INSERT INTO ${table}(${table}) VALUES ('rebuild')`).run();
      }).immediate();
    } catch (error) {
      if (!isSqliteError(error) || !(error.code.startsWith("SQLITE_CORRUPT") || error.code === "SQLITE_NOTADB")) throw error;
      return { before, rebuilt: [], after: { ok: false, problems: [`the search index cannot be rebuilt: ${error.message}`] } };
    }
    const after = quickCheck(db);
    const stillDamaged = after.ok ? ftsProblems(db) : [];
    return { before, rebuilt, after: stillDamaged.length ? { ok: false, problems: stillDamaged.map((name) => `${name} is still damaged`) } : after };
  } finally {
    db.close();
  }
}

export interface SalvageReport {
  sessions: number;
  messages: number;
  /** Rows that could not be read and were left behind. */
  unreadable: number;
  /** Where the damaged file now is. */
  damagedCopy: string;
}

/**
 * Copies every session and message that can still be read from the damaged database at `path`
 * into a new database, then moves the damaged file to `<path>.damaged-<time>` and puts the new
 * one in its place. Nothing is deleted: the damaged file stays beside the new one. Throws
 * HermesError("internal") when the damaged file cannot be read at all or the new one not written.
 */
export function salvageDatabase(path: string, now = Date.now()): SalvageReport {
  const fresh = `${path}.salvage-${now}`;
  const damagedCopy = `${path}.damaged-${now}`;
  let source: Database | undefined;
  let target: Database | undefined;
  try {
    source = new (loadSqlite())(path, { fileMustExist: true, timeout: 0 });
    // Nothing else may have it open: its WAL moves with it, and a writer would keep writing the old file.
    source.exec("BEGIN EXCLUSIVE");
    source.exec("ROLLBACK");
    // A file that is not a database at all has nothing to salvage (this throws SQLITE_NOTADB).
    source.prepare("SELECT count(*) FROM sqlite_master").get();
    target = openStateDb(fresh);
    target.pragma("foreign_keys = OFF");
    const report = { sessions: 0, messages: 0, unreadable: 0 };
    const db = target;
    const columns = (table: string): string[] => (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((column) => column.name);
    const sessionIds = new Set<string>();
    db.transaction(() => {
      for (const table of ["sessions", "messages"] as const) {
        const names = columns(table);
        const insert = db.prepare(`INSERT OR IGNORE INTO ${table} (${names.join(", ")}) VALUES (${names.map((name) => `@${name}`).join(", ")})`);
        for (const row of readableRows(source!, table, table === "sessions" ? "rowid" : "id", report)) {
          // A message whose session row was lost cannot be shown anywhere: counted as unreadable.
          if (table === "messages" && !sessionIds.has(String(row.session_id))) {
            report.unreadable++;
            continue;
          }
          const stored = insert.run(Object.fromEntries(names.map((name) => [name, row[name] ?? null]))).changes > 0;
          if (!stored) report.unreadable++;
          else if (table === "sessions") {
            sessionIds.add(String(row.id));
            report.sessions++;
          } else report.messages++;
        }
      }
    }).immediate();
    target.pragma("foreign_keys = ON");
    target.close();
    target = undefined;
    source.close();
    source = undefined;
    // The damaged file keeps its WAL (committed data may live only there) beside it.
    renameSync(path, damagedCopy);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${damagedCopy}${suffix}`);
    renameSync(fresh, path);
    return { ...report, damagedCopy };
  } catch (error) {
    try {
      target?.close();
    } catch {
      // already closed
    }
    rmSync(fresh, { force: true });
    for (const suffix of ["-wal", "-shm"]) rmSync(`${fresh}${suffix}`, { force: true });
    const busy = isSqliteError(error) && error.code.startsWith("SQLITE_BUSY");
    throw new Error(`cannot salvage ${path}: ${busy ? "it is open in another hermes process; close it first" : describeSqliteFailure(error)}`);
  } finally {
    source?.close();
  }
}

/**
 * Rows of `table` in `order`, read in chunks by rowid so that a damaged page loses only the rows
 * on it: a chunk that fails is read row by row, and rows that still fail are counted as unreadable.
 */
function* readableRows(db: Database, table: string, order: string, report: { unreadable: number }): Generator<Record<string, unknown>> {
  let max = 0;
  try {
    max = Number(db.prepare(`SELECT max(rowid) FROM ${table}`).pluck().get() ?? 0);
  } catch (error) {
    if (isSqliteError(error) && error.code === "SQLITE_NOTADB") throw error;
    // the table's root is damaged: nothing of it can be read by range; fall through with 0
  }
  const chunk = 500;
  for (let start = 0; start <= max; start += chunk) {
    let rows: Array<Record<string, unknown>> | undefined;
    try {
      rows = db.prepare<Record<string, unknown>>(`SELECT * FROM ${table} WHERE rowid > ? AND rowid <= ? ORDER BY ${order}`).all(start, start + chunk);
    } catch {
      rows = undefined;
    }
    if (rows) {
      yield* rows;
      continue;
    }
    for (let rowid = start + 1; rowid <= start + chunk; rowid++) {
      let row: Record<string, unknown> | undefined;
      try {
        row = db.prepare<Record<string, unknown>>(`SELECT * FROM ${table} WHERE rowid = ?`).get(rowid);
      } catch {
        report.unreadable++;
      }
      if (row) yield row;
    }
  }
}
