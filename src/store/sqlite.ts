/**
 * The slice of `better-sqlite3` 12.x the store uses, and its lazy loader.
 *
 * `@types/better-sqlite3` is not installed, so the types here are a minimal local declaration of
 * the driver's API as documented (https://github.com/WiseLibs/better-sqlite3/blob/master/docs/api.md);
 * they describe the object `require("better-sqlite3")` returns and nothing more. The native module is
 * loaded on the first call of `loadSqlite()`, never at import time, so start-up does not pay for it.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement<Row = Record<string, unknown>> {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  iterate(...params: unknown[]): IterableIterator<Row>;
  /** Switches the statement to answer the first column's value instead of row objects. */
  pluck<Value = unknown>(toggle?: boolean): Statement<Value>;
  raw(toggle?: boolean): Statement<unknown[]>;
}

/** A transaction wrapper: calling it runs `BEGIN`; `.immediate` runs `BEGIN IMMEDIATE`. */
export interface Transaction<F extends (...args: never[]) => unknown> {
  (...args: Parameters<F>): ReturnType<F>;
  deferred(...args: Parameters<F>): ReturnType<F>;
  immediate(...args: Parameters<F>): ReturnType<F>;
  exclusive(...args: Parameters<F>): ReturnType<F>;
}

export interface Database {
  readonly name: string;
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare<Row = Record<string, unknown>>(sql: string): Statement<Row>;
  exec(sql: string): Database;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F>;
  close(): Database;
}

export interface DatabaseOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
  timeout?: number;
  /** The native addon's file (the driver then requires it directly instead of searching with `bindings`). */
  nativeBinding?: string;
}

export type DatabaseConstructor = new (filename: string, options?: DatabaseOptions) => Database;

/** The error class `better-sqlite3` throws; `code` is the SQLite extended result code name. */
export interface SqliteErrorLike extends Error {
  code: string;
}

let driver: DatabaseConstructor | undefined;

/**
 * The `better-sqlite3` constructor, loaded on first call (its JavaScript; the native addon loads
 * when the first database opens). Throws if the package is missing. Where the addon `bindings`
 * would find is the install's own `build/Release` file (`releaseAddon`), every open names that
 * file, skipping the search of a dozen paths on the first open (~2–5 ms here); anywhere else the
 * driver searches as it always does. Either way every thread loads the same file (the integrity
 * check's worker requires the driver and searches): two SQLite copies in one process can drop each
 * other's file locks.
 */
export function loadSqlite(): DatabaseConstructor {
  if (driver) return driver;
  const require = createRequire(import.meta.url);
  const Sqlite = require("better-sqlite3") as DatabaseConstructor;
  // The package's entry is lib/index.js.
  const addon = releaseAddon(join(dirname(require.resolve("better-sqlite3")), ".."));
  driver = addon ? openingWith(Sqlite, addon) : Sqlite;
  return driver;
}

const ADDON = "better_sqlite3.node";

/**
 * `<packageRoot>/build/Release/better_sqlite3.node` when it exists and neither file `bindings`
 * tries before it does (`build/better_sqlite3.node`, `build/Debug/better_sqlite3.node`), so it is
 * the file `bindings` would load; else undefined.
 */
export function releaseAddon(packageRoot: string): string | undefined {
  if (existsSync(join(packageRoot, "build", ADDON)) || existsSync(join(packageRoot, "build", "Debug", ADDON))) return undefined;
  const release = join(packageRoot, "build", "Release", ADDON);
  return existsSync(release) ? release : undefined;
}

/** `Sqlite`, every open given `nativeBinding` (unless the caller gave one). */
function openingWith(Sqlite: DatabaseConstructor, nativeBinding: string): DatabaseConstructor {
  return class extends Sqlite {
    constructor(filename: string, options: DatabaseOptions = {}) {
      super(filename, { nativeBinding, ...options });
    }
  };
}

/** True when `error` came from SQLite (it carries a `SQLITE_*` code). */
export function isSqliteError(error: unknown): error is SqliteErrorLike {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("SQLITE_");
}
