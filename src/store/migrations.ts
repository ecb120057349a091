/**
 * Numbered schema migrations for state.db, tracked with `PRAGMA user_version`.
 *
 * Rules: a migration is never edited once released; a change is a new entry with the next number.
 * Each runs in its own `BEGIN IMMEDIATE` transaction together with the `user_version` bump, so a
 * crash leaves the database at the previous version, and two processes opening a fresh file at the
 * same time apply each migration once (the second re-reads the version after taking the lock).
 *
 * Times are REAL Unix epoch seconds (as in Hermes' SessionDB); the store's API converts to ms.
 */
import { HermesError } from "../shared/errors.js";
import { sqlHasNoSpaceScript, sqlHasNoSpaceScriptV1 } from "./scripts.js";
import type { Database } from "./sqlite.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Text indexed for a message row: tool output is indexed by its first 8,192 chars only. */
const indexed = (row: string): string => `CASE WHEN ${row}.role = 'tool' THEN substr(${row}.content, 1, 8192) ELSE ${row}.content END`;
/** Rows the word index holds: those with non-empty content. */
const inWordIndex = (row: string): string => `${row}.content IS NOT NULL AND ${row}.content <> ''`;
/** Rows the trigram index holds: those containing CJK / Thai-like text (see scripts.ts). */
const inTrigramIndex = (row: string): string => sqlHasNoSpaceScript(`${row}.content`);
/** The same rows, as schema versions 1–3 selected them (migration 1 only). */
const inTrigramIndexV1 = (row: string): string => sqlHasNoSpaceScriptV1(`${row}.content`);

/** The view and triggers that keep the trigram index, for a trigram row condition. */
const trigramIndexing = (inTrigram: (row: string) => string): { view: string; triggers: string } => ({
  view: `CREATE VIEW messages_fts_trigram_src AS
  SELECT id, ${indexed("messages")} AS content FROM messages WHERE ${inTrigram("messages")};`,
  triggers: `CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) SELECT new.id, ${indexed("new")} WHERE ${inWordIndex("new")};
  INSERT INTO messages_fts_trigram(rowid, content) SELECT new.id, ${indexed("new")} WHERE ${inTrigram("new")};
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) SELECT 'delete', old.id, ${indexed("old")} WHERE ${inWordIndex("old")};
  INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content)
    SELECT 'delete', old.id, ${indexed("old")} WHERE ${inTrigram("old")};
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF id, role, content ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) SELECT 'delete', old.id, ${indexed("old")} WHERE ${inWordIndex("old")};
  INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content)
    SELECT 'delete', old.id, ${indexed("old")} WHERE ${inTrigram("old")};
  INSERT INTO messages_fts(rowid, content) SELECT new.id, ${indexed("new")} WHERE ${inWordIndex("new")};
  INSERT INTO messages_fts_trigram(rowid, content) SELECT new.id, ${indexed("new")} WHERE ${inTrigram("new")};
END;`,
});
const V1_TRIGRAM = trigramIndexing(inTrigramIndexV1);
const TRIGRAM = trigramIndexing(inTrigramIndex);

const INITIAL_SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL DEFAULT 'acp',
  model TEXT,
  model_config TEXT,
  cwd TEXT,
  title TEXT,
  system_prompt TEXT,
  parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
  started_at REAL NOT NULL,
  ended_at REAL,
  end_reason TEXT,
  last_active REAL NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  tool_call_count INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_sessions_last_active ON sessions(last_active DESC, id DESC);
CREATE INDEX idx_sessions_cwd ON sessions(cwd);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);

CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  content TEXT,
  content_parts TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  timestamp REAL NOT NULL,
  finish_reason TEXT,
  reasoning TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id, id);
CREATE INDEX idx_messages_no_space_script ON messages(id) WHERE ${inTrigramIndexV1("messages")};

CREATE VIEW messages_fts_src AS
  SELECT id, ${indexed("messages")} AS content FROM messages WHERE ${inWordIndex("messages")};
${V1_TRIGRAM.view}

CREATE VIRTUAL TABLE messages_fts USING fts5(
  content, content='messages_fts_src', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
  content, content='messages_fts_trigram_src', content_rowid='id', tokenize='trigram'
);

${V1_TRIGRAM.triggers}
`;

/** Every migration, in order. The last entry's version is the schema version this build writes. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "sessions, messages, FTS5 word and trigram indexes", sql: INITIAL_SCHEMA },
  {
    version: 2,
    name: "tool result details (diffs, exit codes) so a replayed tool call looks as it did live",
    sql: "ALTER TABLE messages ADD COLUMN tool_details TEXT;",
  },
  {
    version: 3,
    name: "thinking signatures and Responses reasoning items kept with assistant messages (Hermes' column names); session cost",
    sql: [
      "ALTER TABLE messages ADD COLUMN reasoning_details TEXT;",
      "ALTER TABLE messages ADD COLUMN codex_reasoning_items TEXT;",
      "ALTER TABLE sessions ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;",
    ].join("\n"),
  },
  {
    version: 4,
    // The partial index is dropped, not rebuilt (a rebuild evaluates the GLOB over every stored
    // message: seconds on a large CJK history): the trigram index's own rowids list the same rows.
    name: "the trigram index's row condition skips single-byte text before its GLOB (same rows, ASCII inserts ~20× cheaper); no partial index",
    sql: [
      "DROP INDEX idx_messages_no_space_script;",
      "DROP VIEW messages_fts_trigram_src;",
      TRIGRAM.view,
      "DROP TRIGGER messages_fts_insert;",
      "DROP TRIGGER messages_fts_delete;",
      "DROP TRIGGER messages_fts_update;",
      TRIGRAM.triggers,
    ].join("\n"),
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function userVersion(db: Database): number {
  return Number(db.pragma("user_version", { simple: true }));
}

/**
 * Brings `db` to `SCHEMA_VERSION`. Throws HermesError("internal") when the file was written by a
 * newer hermes-acp (its version is above ours) or holds tables this store did not create
 * (user_version 0 but a `sessions` table exists); nothing is changed in either case.
 * SQLite errors (busy past the timeout, read-only file) propagate to the caller.
 */
export function migrate(db: Database, path: string, migrations: readonly Migration[] = MIGRATIONS): void {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const current = userVersion(db);
  if (current > latest) {
    throw new HermesError(
      "internal",
      `state database ${path} has schema version ${current}, newer than this hermes-acp understands (${latest}); upgrade hermes-acp`,
      { reason: NEWER_SCHEMA },
    );
  }
  if (current === latest) return;
  for (const migration of migrations) {
    db.transaction(() => {
      const version = userVersion(db);
      if (version >= migration.version) return;
      if (version === 0 && migration.version === 1) refuseForeignDatabase(db, path);
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/** `data.reason` of the error for a state.db another program (Python Hermes) created. */
export const FOREIGN_SCHEMA = "foreign_schema";
/** `HermesError.data.reason` of a state.db written by a newer hermes-acp. */
export const NEWER_SCHEMA = "newer_schema";

function refuseForeignDatabase(db: Database, path: string): void {
  const tables = db.prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
  if (tables.length > 0) {
    throw new HermesError(
      "internal",
      `state database ${path} already holds tables hermes-acp did not create (${tables
        .slice(0, 5)
        .map((t) => t.name)
        .join(", ")}); point HERMES_HOME at another folder or move the file away`,
      { reason: FOREIGN_SCHEMA },
    );
  }
}
