import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "../../test/support/fresh-process.js";
import { HermesError } from "../shared/errors.js";
import { migrate, MIGRATIONS, SCHEMA_VERSION, type Migration } from "./migrations.js";
import { openStateDb } from "./open.js";
import { loadSqlite } from "./sqlite.js";
import { StateStore } from "./state-store.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-store-open-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string): number => statSync(path).mode & 0o777;

function expectInternal(run: () => unknown, ...fragments: string[]): HermesError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HermesError);
    const hermes = error as HermesError;
    expect(hermes.code).toBe("internal");
    for (const fragment of fragments) expect(hermes.message).toContain(fragment);
    return hermes;
  }
  throw new Error("expected a HermesError");
}

describe("openStateDb", () => {
  it("creates the folder (0700) and the file (0600), in WAL mode with the pragmas set", () => {
    const path = join(root, "home", "state.db");
    const db = openStateDb(path);
    try {
      expect(mode(join(root, "home"))).toBe(0o700);
      expect(mode(path)).toBe(0o600);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      expect(db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      db.prepare("INSERT INTO sessions (id, started_at, last_active) VALUES ('s', 1, 1)").run();
      for (const sidecar of [`${path}-wal`, `${path}-shm`]) if (existsSync(sidecar)) expect(mode(sidecar)).toBe(0o600);
    } finally {
      db.close();
    }
  });

  it("creates the schema with Hermes' table names", () => {
    const db = openStateDb(join(root, "state.db"));
    try {
      const names = db.prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all().map((row) => row.name);
      expect(names).toEqual(expect.arrayContaining(["sessions", "messages", "messages_fts", "messages_fts_trigram", "messages_fts_src"]));
      const columns = (table: string): string[] => db.prepare<{ name: string }>(`PRAGMA table_info(${table})`).all().map((row) => row.name);
      expect(columns("sessions")).toEqual(
        expect.arrayContaining([
          ...["id", "source", "model", "model_config", "cwd", "title", "started_at", "ended_at", "end_reason", "parent_session_id"],
          ...["last_active", "message_count", "tool_call_count", "input_tokens", "output_tokens", "reasoning_tokens", "system_prompt"],
        ]),
      );
      expect(columns("messages")).toEqual(
        expect.arrayContaining(["id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "finish_reason", "reasoning"]),
      );
    } finally {
      db.close();
    }
  });

  it("keeps the data and the version when opened again", () => {
    const path = join(root, "state.db");
    const first = openStateDb(path);
    first.prepare("INSERT INTO sessions (id, started_at, last_active) VALUES ('kept', 1, 1)").run();
    first.close();
    const second = openStateDb(path);
    try {
      expect(second.prepare("SELECT id FROM sessions").pluck().all()).toEqual(["kept"]);
      expect(second.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      second.close();
    }
  });

  it("tightens an existing database file to 0600", () => {
    const path = join(root, "state.db");
    openStateDb(path).close();
    chmodSync(path, 0o644);
    expect(mode(path)).toBe(0o644);
    openStateDb(path).close();
    expect(mode(path)).toBe(0o600);
  });

  it("refuses a file that is not a database, naming it, and leaves it untouched", () => {
    const path = join(root, "state.db");
    writeFileSync(path, "this is not a database\n".repeat(400));
    expectInternal(() => openStateDb(path), path, "not a SQLite database");
    expect(readFileSync(path, "utf8")).toBe("this is not a database\n".repeat(400));
  });

  it("refuses a corrupt database, naming it", () => {
    const path = join(root, "state.db");
    openStateDb(path).close();
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(3000, 0xa5), 0, 3000, 100); // page 1 after the header: the schema table
    closeSync(fd);
    expectInternal(() => openStateDb(path), path);
  });

  it("reports a folder that cannot be created, naming the file", () => {
    const blocker = join(root, "file");
    writeFileSync(blocker, "");
    const path = join(blocker, "state.db");
    expectInternal(() => openStateDb(path), path);
  });

  it.skipIf(process.getuid?.() === 0)("reports an unwritable folder, naming the file", () => {
    const folder = join(root, "locked");
    mkdirSync(folder, { mode: 0o500 });
    const path = join(folder, "state.db");
    expectInternal(() => openStateDb(path), path);
  });

  it("refuses a database from a newer hermes-acp", () => {
    const path = join(root, "state.db");
    const db = openStateDb(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expectInternal(() => openStateDb(path), path, "newer");
  });

  it("refuses a database holding tables it did not create", () => {
    const path = join(root, "state.db");
    const Sqlite = loadSqlite();
    const foreign = new Sqlite(path);
    foreign.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY, anything TEXT)");
    foreign.close();
    expectInternal(() => openStateDb(path), path, "did not create");
  });

  it("leaves another Hermes's state.db untouched and keeps its own sessions in state-acp.db beside it", () => {
    const path = join(root, "state.db");
    const Sqlite = loadSqlite();
    const foreign = new Sqlite(path);
    foreign.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY, last_activity_at REAL); INSERT INTO sessions VALUES ('py', 1)");
    foreign.close();
    const store = new StateStore(path);
    const meta = store.createSession({ id: "ts", cwd: "/w", model: "m", provider: "p" });
    store.appendMessage(meta, { role: "user", content: "hello" });
    expect(store.loadMessages("ts")).toHaveLength(1);
    store.close();
    expect(existsSync(join(root, "state-acp.db"))).toBe(true);
    const check = new Sqlite(path, { readonly: true });
    expect(check.prepare("SELECT id FROM sessions").all()).toEqual([{ id: "py" }]);
    check.close();
  });
});

describe("migrate", () => {
  it("applies each pending migration once, each with its version bump", () => {
    const Sqlite = loadSqlite();
    const db = new Sqlite(join(root, "m.db"));
    const extra: Migration[] = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, name: "test", sql: "CREATE TABLE extra (x INTEGER)" }];
    try {
      migrate(db, "m.db", MIGRATIONS);
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      migrate(db, "m.db", extra);
      migrate(db, "m.db", extra);
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1);
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'extra'").pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });

  it("rolls a failing migration back entirely, version included", () => {
    const Sqlite = loadSqlite();
    const db = new Sqlite(join(root, "m.db"));
    const broken: Migration[] = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, name: "broken", sql: "CREATE TABLE half (x); SELECT * FROM missing_table" }];
    try {
      expect(() => migrate(db, "m.db", broken)).toThrow();
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe("migration 4 (trigram row condition)", () => {
  // Texts on both sides of the single-byte pre-check: ASCII, accents (multi-byte, no CJK), each
  // script of the list, an embedded NUL before and after CJK, empty and NULL.
  const texts: Array<string | null> = [
    "plain ascii words", "café résumé naïve", "東京タワー", "mixed 日本語 and ascii", "한국어 문장", "ภาษาไทย",
    "emoji only 🎉", "𠀀 extension B", "ascii\u0000東京タワー", "東京タワー\u0000ascii", "", null, "x".repeat(20_000) + "東京タワー",
  ];

  it("selects the same rows as versions 1–3 did, for every kind of text", () => {
    const db = new (loadSqlite())(":memory:");
    try {
      const condition = (sql: string): string => sql.match(/CREATE VIEW messages_fts_trigram_src AS\n.* FROM messages WHERE (.*);/)![1]!;
      const v1 = condition(MIGRATIONS[0]!.sql);
      const v4 = condition(MIGRATIONS[3]!.sql);
      expect(v4).not.toBe(v1);
      const check = (condition: string, text: string | null): number =>
        Number(db.prepare(`SELECT coalesce((${condition.replaceAll("messages.content", "@text")}), 0)`).pluck().get({ text }));
      for (const text of texts) expect([text, check(v4, text)]).toEqual([text, check(v1, text)]);
    } finally {
      db.close();
    }
  });

  it("migrates a version 3 database keeping its trigram index whole, and indexes new rows as version 3 did", () => {
    const Sqlite = loadSqlite();
    // Same writes into a database left at version 3 and one migrated to 4 between them.
    const run = (file: string, upgrade: boolean): { rows: unknown[]; matches: unknown[][] } => {
      const db = new Sqlite(join(root, file));
      try {
        migrate(db, file, MIGRATIONS.slice(0, 3));
        db.prepare("INSERT INTO sessions (id, started_at, last_active) VALUES ('s', 1, 1)").run();
        const insert = db.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', @role, @content, 1)");
        for (const content of texts) insert.run({ role: "user", content });
        if (upgrade) migrate(db, file);
        expect(db.pragma("user_version", { simple: true })).toBe(upgrade ? 4 : 3);
        // Version 4 lists the trigram rows from the index itself: the partial index is gone, not rebuilt.
        expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'idx_messages_no_space_script'").pluck().get()).toBe(upgrade ? 0 : 1);
        for (const content of texts) insert.run({ role: "tool", content });
        db.prepare("UPDATE messages SET content = 'now ascii' WHERE id = 3").run();
        db.prepare("UPDATE messages SET content = '今は日本語' WHERE id = 1").run();
        db.prepare("DELETE FROM messages WHERE id = 4").run();
        db.exec("INSERT INTO messages_fts_trigram(messages_fts_trigram, rank) VALUES('integrity-check', 1)");
        const rows = db.prepare("SELECT id FROM messages_fts_trigram_src ORDER BY id").pluck().all();
        expect(db.prepare("SELECT id FROM messages_fts_trigram_docsize ORDER BY id").pluck().all()).toEqual(rows);
        return {
          rows,
          matches: ["東京タ", "日本語", "한국어", "ภาษา", "は日本"].map((term) =>
            db.prepare("SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ? ORDER BY rowid").pluck().all(`"${term}"`),
          ),
        };
      } finally {
        db.close();
      }
    };
    const before = run("v3.db", false);
    const after = run("v4.db", true);
    expect(before.rows.length).toBeGreaterThanOrEqual(12);
    expect(before.matches.every((ids) => ids.length > 0)).toBe(true);
    expect(after).toEqual(before);
  });
});

describe("StateStore laziness", () => {
  it("touches no file until first used", () => {
    const path = join(root, "home", "state.db");
    const store = new StateStore(path);
    const meta = store.createSession({ id: "s", cwd: root, model: "m", provider: "p" });
    expect(meta.id).toBe("s");
    expect(store.isOpen).toBe(false);
    expect(existsSync(join(root, "home"))).toBe(false);
    expect(store.getSession("s")).toBeUndefined();
    expect(store.isOpen).toBe(true);
    store.close();
  });

  it.skipIf(process.platform !== "linux")("loads the native driver only on first use", () => {
    const script = `
      import { readFileSync } from "node:fs";
      const loaded = () => readFileSync("/proc/self/maps", "utf8").includes("better_sqlite3.node");
      const { StateStore } = await import(${JSON.stringify(resolve(import.meta.dirname, "state-store.ts"))});
      const store = new StateStore(${JSON.stringify(join(root, "lazy", "state.db"))});
      const before = loaded();
      store.listSessions();
      console.log(JSON.stringify({ before, after: loaded() }));
      store.close();`;
    expect(runInFreshProcess(script)).toEqual({ before: false, after: true });
  });

  it("turns an open failure into HermesError on each call, and retries", () => {
    const blocker = join(root, "file");
    writeFileSync(blocker, "");
    const store = new StateStore(join(blocker, "state.db"));
    expectInternal(() => store.listSessions(), join(blocker, "state.db"));
    expect(store.isOpen).toBe(false);
    rmSync(blocker);
    expect(store.listSessions()).toEqual({ sessions: [] });
    store.close();
  });
});
