/**
 * What Python Hermes' state.db holds, found by looking rather than assumed from one version:
 * which of its tables and columns exist and whether its search indexes answer. Hermes' schema
 * (hermes_state_common.py `SCHEMA_SQL`, `FTS_SQL`, `LEGACY_FTS_SQL`; version 30 as read in
 * 2026) grew over many versions, and older files lack columns (`title`, `active`, `compacted`,
 * `display_kind`, `last_activity_at`, `cwd`…), an FTS table, or have the legacy inline one.
 *
 * Only `sessions(id, source, started_at)` and `messages(id, session_id, role, content, timestamp)`
 * are required; everything else is read when present and otherwise stood in for (NULL, a count,
 * a LIKE scan). Times there are REAL Unix epoch seconds.
 */
import { HIDDEN_SOURCES } from "./lineage.js";
import { isSqliteError, type Database } from "./sqlite.js";

export const REQUIRED_SESSION_COLUMNS = ["id", "source", "started_at"] as const;
export const REQUIRED_MESSAGE_COLUMNS = ["id", "session_id", "role", "content", "timestamp"] as const;

export interface HermesSchema {
  /** Hermes' own schema version (its `schema_version` table), when it has one. */
  version: number | null;
  sessionColumns: ReadonlySet<string>;
  messageColumns: ReadonlySet<string>;
  /** `messages_fts` (word index) exists and answers a MATCH. */
  words: boolean;
  /** `messages_fts_trigram` exists and answers a MATCH. */
  trigram: boolean;
}

/** The outcome of a probe: Hermes' database, a database that is not Hermes' (nothing to say), or why it cannot be read. */
export type ProbeResult =
  | { kind: "hermes"; schema: HermesSchema }
  | { kind: "not_hermes" }
  /** `transient`: the file was locked (Hermes busy rewriting it); looking again later may succeed. */
  | { kind: "unusable"; reason: string; transient?: true };

/**
 * Looks at an open, read-only database. A file hermes-acp migrated (`user_version` above 0) or
 * without both `sessions` and `messages` is `not_hermes`; a Hermes file missing a required column,
 * with `sessions` or `messages` as views, or with a view over a WITH query (which a read could
 * never finish) is `unusable` with the reason named; a file SQLite cannot read (not a database, corrupt) is
 * `unusable` with SQLite's reason, and a locked one `unusable` and `transient`. Never throws.
 */
export function probeHermesSchema(db: Database): ProbeResult {
  try {
    if (Number(db.pragma("user_version", { simple: true })) !== 0) return { kind: "not_hermes" };
    const objects = db.prepare<{ name: string; type: string; sql: string | null }>("SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view')").all();
    const tables = new Set(objects.filter((object) => object.type === "table").map((object) => object.name));
    const names = new Set(objects.map((object) => object.name));
    if (!names.has("sessions") || !names.has("messages")) return { kind: "not_hermes" };
    // Hermes writes tables and plain views only: a view over a (recursive) WITH query can make a read never end
    const unsafe = objects.find((object) => object.type === "view" && /\bWITH\b/i.test(object.sql ?? ""));
    if (unsafe) return { kind: "unusable", reason: `its view ${unsafe.name} runs a WITH query, which Hermes never writes (such a view can make a read run forever)` };
    const views = ["sessions", "messages"].filter((name) => !tables.has(name));
    if (views.length > 0) return { kind: "unusable", reason: `${views.join(" and ")} ${views.length > 1 ? "are views" : "is a view"}, not Hermes' tables` };
    const sessionColumns = columnsOf(db, "sessions");
    const messageColumns = columnsOf(db, "messages");
    const missing = [
      ...REQUIRED_SESSION_COLUMNS.filter((column) => !sessionColumns.has(column)).map((column) => `sessions.${column}`),
      ...REQUIRED_MESSAGE_COLUMNS.filter((column) => !messageColumns.has(column)).map((column) => `messages.${column}`),
    ];
    if (missing.length > 0) return { kind: "unusable", reason: `its schema lacks ${missing.join(", ")}` };
    return {
      kind: "hermes",
      schema: {
        version: tables.has("schema_version") ? schemaVersion(db) : null,
        sessionColumns,
        messageColumns,
        words: tables.has("messages_fts") && answers(db, "messages_fts"),
        trigram: tables.has("messages_fts_trigram") && answers(db, "messages_fts_trigram"),
      },
    };
  } catch (error) {
    if (!isSqliteError(error)) return { kind: "unusable", reason: String(error) };
    const locked = error.code.startsWith("SQLITE_BUSY") || error.code.startsWith("SQLITE_LOCKED");
    return { kind: "unusable", reason: `${error.message} (${error.code})`, ...(locked ? { transient: true as const } : {}) };
  }
}

function columnsOf(db: Database, table: string): Set<string> {
  return new Set(db.prepare<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all().map((row) => row.name));
}

function schemaVersion(db: Database): number | null {
  try {
    const version = db.prepare("SELECT max(version) FROM schema_version").pluck<number | null>().get();
    return typeof version === "number" ? version : null;
  } catch {
    return null;
  }
}

/**
 * True when a MATCH on `table` runs and its content can be read (a missing tokenizer, a missing
 * content view or a broken index throws here, not in a search).
 */
function answers(db: Database, table: string): boolean {
  try {
    db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH '"hermesprobe"' LIMIT 1`).all();
    db.prepare(`SELECT * FROM ${table} LIMIT 1`).all();
    return true;
  } catch {
    return false;
  }
}

/** `alias.column` when the column exists, else `fallback` (an SQL expression). */
export function column(columns: ReadonlySet<string>, alias: string, name: string, fallback = "NULL"): string {
  return columns.has(name) ? `${alias}.${name}` : fallback;
}

/**
 * `expr` as text or NULL, whatever SQLite holds there: columns without a declared type (or a
 * damaged file) may hold numbers or blobs where Hermes writes text, and one such value must not
 * break a whole answer.
 */
export const asText = (expr: string): string => `CAST(${expr} AS TEXT)`;

/** `expr` when it is a number, else NULL (counts and times that hold text or a blob are not believed). */
export const asNumber = (expr: string): string => `(CASE WHEN typeof(${expr}) IN ('integer', 'real') THEN ${expr} END)`;

/**
 * The SQL condition for a message row (`alias`) a person saw and that is still part of the
 * conversation: live (`active = 1`) or archived by compaction (`compacted = 1`), never a
 * rewound one, never `display_kind = 'hidden'` scaffolding, one of the four chat roles, with an
 * integer id (the id a later scroll names it by).
 */
export function visibleMessage(columns: ReadonlySet<string>, alias: string): string {
  const parts = [`${alias}.role IN ('system', 'user', 'assistant', 'tool')`, `typeof(${alias}.id) = 'integer'`];
  if (columns.has("active")) parts.push(columns.has("compacted") ? `(${alias}.active = 1 OR ${alias}.compacted = 1)` : `${alias}.active = 1`);
  if (columns.has("display_kind")) parts.push(`COALESCE(${alias}.display_kind, '') <> 'hidden'`);
  return parts.join(" AND ");
}

/**
 * The SQL condition for a session row (`alias`) that may be browsed and searched: a text id, not
 * of a hidden source, and not a delegate child marked `_delegate_from` (children spawned under a gateway turn
 * keep the gateway's source; Hermes keeps them out of its lists and its trigram index the same way).
 */
export function visibleSession(columns: ReadonlySet<string>, alias: string): string {
  // Hermes' session ids are text; a row with another kind of id (a damaged or foreign row) cannot be looked up again by its id
  const parts = [`typeof(${alias}.id) = 'text'`, `COALESCE(${alias}.source, '') NOT IN (${HIDDEN_SOURCES.map((source) => `'${source.replace(/'/g, "''")}'`).join(", ")})`];
  if (columns.has("model_config")) {
    parts.push(`json_extract(CASE WHEN json_valid(${alias}.model_config) THEN ${alias}.model_config ELSE '{}' END, '$._delegate_from') IS NULL`);
  }
  return parts.join(" AND ");
}
