/**
 * Opening state.db: folder and file created private (0700 / 0600), WAL, busy timeout, foreign keys,
 * synchronous=NORMAL (a committed transaction survives a killed process; only a power loss can
 * lose the last commits), then the numbered migrations.
 */
import { chmodSync, constants, closeSync, lstatSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage, HermesError } from "../shared/errors.js";
import { migrate } from "./migrations.js";
import { isSqliteError, loadSqlite, type Database } from "./sqlite.js";

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface OpenStateDbOptions {
  /** How long a statement waits for another process's write lock before failing (ms). */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating when missing) the SQLite database at `path` and migrates it to the current
 * schema. Loads the native driver on first call. Throws only HermesError("internal") with a
 * message naming the file: unwritable or missing folder, not a database, corrupt, locked,
 * written by a newer version. Nothing stored is changed when it throws.
 */
export function openStateDb(path: string, options: OpenStateDbOptions = {}): Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  createPrivateFile(path);
  let db: Database | undefined;
  try {
    const Sqlite = loadSqlite();
    db = new Sqlite(path, { timeout: busyTimeoutMs });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    const mode = switchToWal(db, busyTimeoutMs);
    if (mode.toLowerCase() !== "wal") throw new Error(`could not switch it to WAL mode (journal mode is ${mode})`);
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db, path);
    tightenModes(path);
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // closing a half-open handle is best-effort; the original error is what matters
    }
    if (error instanceof HermesError) throw error;
    const locked = isSqliteError(error) && (error.code.startsWith("SQLITE_BUSY") || error.code.startsWith("SQLITE_LOCKED"));
    throw new HermesError("internal", `cannot open the state database ${path}: ${describeSqliteFailure(error)}`, locked ? { locked: true } : undefined);
  }
}

/**
 * `PRAGMA journal_mode = WAL`, retried: on a fresh file another process may be creating the
 * schema, and the switch answers SQLITE_BUSY at once instead of honouring the busy timeout.
 * Retries with growing pauses (a synchronous wait: opening is synchronous) until the busy timeout
 * has passed (at least 100 ms), then throws the last error; a busy timeout of 0 tries once. Returns
 * the journal mode SQLite reports.
 */
function switchToWal(db: Database, busyTimeoutMs: number): string {
  const deadline = Date.now() + (busyTimeoutMs > 0 ? Math.max(busyTimeoutMs, 100) : 0);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      return String(db.pragma("journal_mode = WAL", { simple: true }));
    } catch (error) {
      const busy = isSqliteError(error) && (error.code.startsWith("SQLITE_BUSY") || error.code.startsWith("SQLITE_LOCKED"));
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(5 * 2 ** attempt, 100));
    }
  }
}

/** A user-facing reason for a failed SQLite operation (no stack, no SQL). */
export function describeSqliteFailure(error: unknown): string {
  if (!isSqliteError(error)) return errorMessage(error);
  const code = error.code;
  if (code === "SQLITE_NOTADB") return "the file is not a SQLite database (corrupt, or another kind of file)";
  if (code.startsWith("SQLITE_CORRUPT")) return `the database is corrupt (${error.message})`;
  if (code.startsWith("SQLITE_CANTOPEN")) return "the file cannot be opened (is the folder writable?)";
  if (code.startsWith("SQLITE_READONLY")) return "the file or its folder is read-only";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "it is locked by another process (timed out waiting)";
  if (code === "SQLITE_FULL") return "the disk is full";
  if (code.startsWith("SQLITE_IOERR")) return `a disk I/O error occurred (${error.message})`;
  if (code === "SQLITE_PERM" || code === "SQLITE_AUTH") return "permission denied";
  return `${error.message} (${code})`;
}

/**
 * Creates the folder (0700, only when missing) and the file (0600, O_EXCL so an existing file is
 * never opened here: closing a descriptor would drop this process's SQLite locks on it).
 */
function createPrivateFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new HermesError("internal", `cannot create the folder of the state database ${path}: ${errorMessage(error)}`);
  }
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw new HermesError("internal", `cannot create the state database ${path}: ${errorMessage(error)}`);
  }
}

/** Makes the database and its WAL / shared-memory files 0600 (path-based chmod keeps locks). */
function tightenModes(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      const stat = lstatSync(file);
      if (stat.isFile() && (stat.mode & 0o777) !== 0o600) chmodSync(file, 0o600);
    } catch {
      // missing sidecar, or a file we do not own: SQLite already gave it the main file's mode
    }
  }
}
