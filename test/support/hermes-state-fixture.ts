/**
 * A `state.db` as Python Hermes writes it, for tests of reading the history a Hermes user already
 * has. The SQL below is transcribed from NousResearch/hermes-agent `hermes_state_common.py`
 * (`SCHEMA_SQL` at `SCHEMA_VERSION = 30`, `FTS_SQL` and `FTS_TRIGRAM_SQL` of FTS storage layout 3,
 * and `LEGACY_FTS_SQL`, the inline index v11–v22 shipped), trimmed to the tables session search
 * touches (gateway, usage, lease and delegation tables left out). Times are REAL epoch seconds.
 *
 * Layouts: `v30` (today's schema, external-content word + trigram indexes), `legacy` (an older
 * install: no title / active / compacted / display_kind / last_activity_at / cwd columns, the
 * inline `messages_fts` of `LEGACY_FTS_SQL`), `minimal` (the oldest shape: a few columns and no
 * search index at all).
 */
import { loadSqlite } from "../../src/store/sqlite.js";

export type HermesLayout = "v30" | "legacy" | "minimal";

export interface HermesFixtureMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  /** Epoch seconds; default: the session's start plus the message's index. */
  timestamp?: number;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolName?: string;
  toolCallId?: string;
  /** v30 only: 0 with `compacted` 0 is a rewound row (hidden). */
  active?: number;
  compacted?: number;
  displayKind?: string;
}

export interface HermesFixtureSession {
  id: string;
  source: string;
  title?: string;
  parentSessionId?: string;
  /** Epoch seconds. */
  startedAt: number;
  endedAt?: number;
  endReason?: string;
  cwd?: string;
  model?: string;
  modelConfig?: Record<string, unknown>;
  messages: HermesFixtureMessage[];
}

/** `hermes_state_common.SCHEMA_SQL` (v30): the tables and indexes session search reads. */
const SCHEMA_V30 = `
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS system_prompts (
    hash TEXT PRIMARY KEY,
    prompt TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    created_source TEXT,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    system_prompt_hash TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    git_metadata_generation INTEGER NOT NULL DEFAULT 0,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    title_source TEXT,
    last_activity_at REAL,
    last_activity_description TEXT,
    last_activity_provenance TEXT,
    api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    compression_ineffective_count INTEGER NOT NULL DEFAULT 0,
    compression_recovery_deadline REAL,
    compression_overload_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT,
    transport_profile TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    pinned INTEGER NOT NULL DEFAULT 0,
    hidden INTEGER NOT NULL DEFAULT 0,
    last_read_at REAL,
    tool_names TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id),
    FOREIGN KEY (system_prompt_hash) REFERENCES system_prompts(hash)
);

CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    _compressed_summary INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0,
    api_content TEXT,
    display_kind TEXT,
    display_metadata TEXT,
    display_identity BLOB,
    display_order INTEGER
);

CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);

CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_session_id ON messages(session_id, id);
`;

/** `_fts_indexed_content_sql(alias)`: tool rows indexed by their first 8,192 chars. */
const indexed = (alias: string): string => `CASE WHEN ${alias}.role = 'tool'
         THEN substr(COALESCE(${alias}.content, ''), 1, 8192)
         ELSE ${alias}.content END`;

/** The deferred-rebuild gate every v23+ FTS trigger carries (a tautology when no rebuild is pending). */
const gate = (alias: string): string => `(${alias}.id > COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
                         WHERE key = 'fts_rebuild_high_water'), -1)
   OR ${alias}.id <= COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
                          WHERE key = 'fts_rebuild_progress'), -1))`;

/** `FTS_SQL` (layout 3): the word index reads through the `messages_fts_src` projection. */
const FTS_V30 = `
CREATE VIEW IF NOT EXISTS messages_fts_src AS
    SELECT id,
           CASE WHEN role = 'tool'
                THEN substr(COALESCE(content, ''), 1, 8192)
                ELSE content END AS content,
           tool_name, tool_calls
    FROM messages;

CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content,
    tool_name,
    tool_calls,
    content='messages_fts_src',
    content_rowid='id'
);

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages
WHEN ${gate("new")}
BEGIN
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, ${indexed("new")}, new.tool_name, new.tool_calls);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages
WHEN ${gate("old")}
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, ${indexed("old")}, old.tool_name, old.tool_calls);
END;
`;

/** `fts_trigram_session_sql('s')`: cron and subagent sessions and delegate children stay out of the trigram index. */
const trigramSessions = (q: string): string =>
  `${q}source NOT IN ('cron', 'subagent') AND json_extract((CASE WHEN json_valid(${q}model_config) THEN ${q}model_config ELSE json_object() END), '$._delegate_from') IS NULL`;

/** `FTS_TRIGRAM_SQL` (layout 3), insert trigger only (fixtures never update or delete). */
const TRIGRAM_V30 = `
CREATE VIEW IF NOT EXISTS messages_fts_trigram_src AS
    SELECT m.id, m.role, m.content, m.tool_name
    FROM messages AS m
    JOIN sessions AS s ON s.id = m.session_id
    WHERE m.role <> 'tool' AND ${trigramSessions("s.")};

CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    tool_name,
    content='messages_fts_trigram_src',
    content_rowid='id',
    tokenize='trigram'
);

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages
WHEN new.role <> 'tool'
   AND EXISTS (SELECT 1 FROM sessions
               WHERE id = new.session_id AND ${trigramSessions("")})
   AND ${gate("new")}
BEGIN
    INSERT INTO messages_fts_trigram(rowid, content, tool_name)
    VALUES (new.id, new.content, new.tool_name);
END;
`;

/** An older install: fewer columns, and `LEGACY_FTS_SQL`'s inline word index. */
const SCHEMA_LEGACY = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);

CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content
);

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (
        new.id,
        COALESCE(${indexed("new")}, '')
        || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
`;

/** The oldest shape: the required columns and little else, no search index. */
const SCHEMA_MINIMAL = `
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    model TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL
);
`;

/**
 * Creates `path` as Python Hermes would have it (WAL journal for `v30`, checkpointed and closed,
 * so no `-wal` / `-shm` remain) holding `sessions` in order, in one transaction (an iterable is
 * read once, so a generator can write a large corpus). Throws for a bad fixture.
 */
export function writeHermesState(path: string, sessions: Iterable<HermesFixtureSession>, layout: HermesLayout = "v30"): void {
  const db = new (loadSqlite())(path);
  try {
    if (layout === "v30") {
      db.pragma("journal_mode = WAL");
      db.exec(SCHEMA_V30 + FTS_V30 + TRIGRAM_V30);
      db.prepare("INSERT INTO schema_version (version) VALUES (30)").run();
    } else if (layout === "legacy") {
      db.exec(SCHEMA_LEGACY);
      db.prepare("INSERT INTO schema_version (version) VALUES (22)").run();
    } else {
      db.exec(SCHEMA_MINIMAL);
    }
    const columnsOf = new Map<string, Set<string>>();
    const has = (table: string, column: string): boolean => {
      let columns = columnsOf.get(table);
      if (!columns) columnsOf.set(table, (columns = new Set(db.prepare<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all().map((row) => row.name))));
      return columns.has(column);
    };
    const statements = new Map<string, ReturnType<typeof db.prepare>>();
    const insert = (table: string, row: Record<string, unknown>): void => {
      const names = Object.keys(row);
      const sql = `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map((name) => `@${name}`).join(", ")})`;
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      statement.run(row);
    };
    db.transaction(() => {
      for (const session of sessions) {
        const row: Record<string, unknown> = {
          id: session.id,
          source: session.source,
          model: session.model ?? "hermes-model",
          parent_session_id: session.parentSessionId ?? null,
          started_at: session.startedAt,
          ended_at: session.endedAt ?? null,
          end_reason: session.endReason ?? null,
        };
        if (has("sessions", "model_config")) row.model_config = JSON.stringify(session.modelConfig ?? {});
        if (has("sessions", "message_count")) row.message_count = session.messages.length;
        if (has("sessions", "title")) row.title = session.title ?? null;
        if (has("sessions", "cwd")) row.cwd = session.cwd ?? null;
        if (has("sessions", "last_activity_at")) row.last_activity_at = session.startedAt + session.messages.length;
        insert("sessions", row);
        session.messages.forEach((message, index) => {
          const values: Record<string, unknown> = {
            session_id: session.id,
            role: message.role,
            content: message.content,
            timestamp: message.timestamp ?? session.startedAt + index,
            tool_call_id: message.toolCallId ?? null,
            tool_calls: message.toolCalls ? JSON.stringify(message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }))) : null,
            tool_name: message.toolName ?? null,
          };
          if (has("messages", "active")) values.active = message.active ?? 1;
          if (has("messages", "compacted")) values.compacted = message.compacted ?? 0;
          if (has("messages", "display_kind")) values.display_kind = message.displayKind ?? null;
          insert("messages", values);
        });
      }
    })();
  } finally {
    db.close();
  }
}
