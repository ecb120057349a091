import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { writeHermesState, type HermesLayout } from "../../test/support/hermes-state-fixture.js";
import { hermesUserSessions } from "../../test/support/hermes-user-sessions.js";
import { HermesHistory } from "./hermes-history.js";
import { loadSqlite } from "./sqlite.js";
import { StateStore } from "./state-store.js";

let root: string;
let path: string;
let history: HermesHistory;
let stderr: string[];

const CLI = "20241224_010000_aa11";
const TELEGRAM = "20241224_020000_bb22";
const ROOT = "20241224_030000_cc33";
const CONTINUATION = "20241224_031000_cc34";
const CRON = "20241224_040000_dd44";
const SUBAGENT = "20241224_050000_ee55";
const DELEGATE = "20241224_060000_ff66";

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-history-"));
  path = join(root, "state.db");
  stderr = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  history?.close();
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

function open(layout: HermesLayout = "v30"): HermesHistory {
  writeHermesState(path, hermesUserSessions(), layout);
  history = new HermesHistory(path);
  return history;
}

const fingerprint = (file: string): { hash: string; mtime: number; size: number } => {
  const stat = statSync(file);
  return { hash: createHash("sha256").update(readFileSync(file)).digest("hex"), mtime: stat.mtimeMs, size: stat.size };
};

describe("HermesHistory over Hermes' v30 schema", () => {
  it("probes the schema and its indexes", () => {
    expect(open().status()).toEqual({ kind: "available", version: 30, words: true, trigram: true });
  });

  it("finds a Telegram message labelled with its source, never a rewound row", () => {
    const h = open();
    const hits = h.search({ query: "buttermilk", limit: 10 });
    expect(hits.map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
    expect(hits[0]).toMatchObject({ origin: "hermes", source: "telegram", title: "Pancake recipe", rootSessionId: TELEGRAM, preview: "what goes into buttermilk pancakes?" });
    expect(hits[0]!.snippet).toMatch(/>>>buttermilk<<</i);
    expect(hits[0]!.context.map((message) => message.text).join(" ")).not.toContain("waffles");
    expect(h.search({ query: "waffles" })).toEqual([]);
  });

  it("never returns hidden sources or delegate children", () => {
    const h = open();
    expect(h.search({ query: "secret subagent notes", limit: 10 })).toEqual([]);
    expect(h.search({ query: "sourcing", limit: 10 })).toEqual([]);
    expect(h.search({ query: "walrus", limit: 10 }).map((hit) => hit.sessionId)).toEqual([CLI]);
    expect(h.getSession(SUBAGENT)).toBeUndefined();
    expect(h.getSession(DELEGATE)).toBeUndefined();
    expect(h.readSession(SUBAGENT)).toBeUndefined();
    const listed = [...h.recentSessions({ limit: 50 }).map((row) => row.id), ...h.listSessions({ limit: 50 }).sessions.map((row) => row.id)];
    expect(listed).not.toContain(SUBAGENT);
    expect(listed).not.toContain(DELEGATE);
  });

  it("groups a compression continuation with its root (one hit, the root's title) and ranks cron after it", () => {
    const h = open();
    const hits = h.search({ query: "nebulae", limit: 10 });
    expect(hits.map((hit) => hit.rootSessionId)).toEqual([ROOT, CRON]);
    expect(hits[0]).toMatchObject({ title: "Telescope choice", source: "discord" });
    expect([ROOT, CONTINUATION]).toContain(hits[0]!.sessionId);
    expect(hits[1]).toMatchObject({ sessionId: CRON, source: "cron" });
    expect(h.search({ query: "nebulae", limit: 1 }).map((hit) => hit.rootSessionId)).toEqual([ROOT]);
  });

  it("takes a lineage's newest match when sorting by time (cron still after the rest)", () => {
    const hits = open().search({ query: "nebulae", limit: 10, sort: "recent" });
    expect(hits.map((hit) => hit.sessionId)).toEqual([CONTINUATION, CRON]);
    expect(hits[0]!.snippet).toContain("cooled astro camera");
  });

  it("browses one row per lineage, its latest session standing for it, in ms", () => {
    const h = open();
    const recent = h.recentSessions({ limit: 10 });
    expect(recent.map((row) => row.id)).toEqual([CRON, CONTINUATION, TELEGRAM, CLI]);
    expect(recent[1]).toMatchObject({ rootSessionId: ROOT, title: "Telescope choice", source: "discord", origin: "hermes", preview: "and which camera for nebulae photos?" });
    expect(recent[3]!.startedAt).toBe(1_735_000_000_000);
    expect(h.recentSessions({ limit: 2 })).toHaveLength(2);
  });

  it("lists sessions one by one with their parents and filters by folder", () => {
    const h = open();
    const { sessions, more } = h.listSessions({ limit: 50 });
    expect(sessions.map((row) => row.id)).toEqual([CRON, CONTINUATION, ROOT, TELEGRAM, CLI]);
    expect(more).toBe(false);
    expect(sessions[1]).toMatchObject({ parentSessionId: ROOT, origin: "hermes" });
    expect(h.listSessions({ limit: 2 })).toMatchObject({ more: true });
    expect(h.listSessions({ limit: 50, cwd: "/home/user/infra" }).sessions.map((row) => row.id)).toEqual([CLI]);
  });

  it("reads and scrolls a session in the OpenAI shape, only rows a person saw", () => {
    const h = open();
    const cli = h.readSession(CLI)!;
    expect(cli).toMatchObject({ total: 4, skipped: 0, session: { id: CLI, source: "cli", title: "Deploy script", cwd: "/home/user/infra", origin: "hermes" } });
    expect(cli.messages[1]!.message).toEqual({ role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "terminal", arguments: '{"command":"ls deploy"}' } }] });
    expect(cli.messages[2]!.message).toEqual({ role: "tool", tool_call_id: "call_1", name: "terminal", content: "deploy.sh" });
    expect(cli.messages[0]!.timestamp).toBe(1_735_000_000_000);
    expect(h.readSession(TELEGRAM)!.total).toBe(2);
    const ids = cli.messages.map((row) => row.id);
    expect(h.messagesAround(CLI, ids[1]!, 1).map((row) => row.id)).toEqual(ids.slice(0, 3));
    expect(h.messagesAround(TELEGRAM, ids[1]!, 1)).toEqual([]);
    expect(h.messagesAround("missing", ids[1]!, 1)).toEqual([]);
  });

  it("never writes the file", () => {
    writeHermesState(path, hermesUserSessions());
    const before = fingerprint(path);
    history = new HermesHistory(path);
    history.search({ query: "buttermilk" });
    history.search({ query: "テレスコープ" });
    history.recentSessions();
    history.readSession(CLI);
    history.close();
    expect(fingerprint(path)).toEqual(before);
  });
});

describe("HermesHistory ranking over a large index", () => {
  it("ranks the most recent 20,000 matches first, and every match when those give too few conversations", () => {
    const busy = { id: "20241225_010000_a1a1", source: "cli", startedAt: 1_735_100_000, messages: Array.from({ length: 20_010 }, () => ({ role: "assistant" as const, content: "the walrus again" })) };
    const old = { id: "20241201_010000_b2b2", source: "cli", title: "Old walrus", startedAt: 1_733_000_000, messages: [{ role: "user" as const, content: "walrus walrus walrus" }] };
    writeHermesState(path, [old, busy]);
    history = new HermesHistory(path);
    // user and assistant: the busy session's recent matches are enough for one conversation
    expect(history.search({ query: "walrus", limit: 1 }).map((hit) => hit.sessionId)).toEqual([busy.id]);
    // two wanted: the old session lies outside the recent window, and is found by ranking everything
    expect(history.search({ query: "walrus", limit: 2 }).map((hit) => hit.sessionId).sort()).toEqual([old.id, busy.id].sort());
    // users only: the window holds no user message at all
    expect(history.search({ query: "walrus", roleFilter: ["user"] }).map((hit) => hit.sessionId)).toEqual([old.id]);
  });
});

describe("HermesHistory over older and damaged files", () => {
  it("reads an older schema with the legacy inline index", () => {
    const h = open("legacy");
    expect(h.status()).toEqual({ kind: "available", version: 22, words: true, trigram: false });
    const hits = h.search({ query: "buttermilk", limit: 10 });
    // the rewound row cannot be told apart without an `active` column: the session is found either way
    expect(hits.map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
    expect(hits[0]).toMatchObject({ title: null, source: "telegram" });
    expect(h.search({ query: "nebulae", limit: 10 }).map((hit) => hit.rootSessionId)).toEqual([ROOT, CRON]);
  });

  it("searches the oldest shape without any index by substring", () => {
    const h = open("minimal");
    expect(h.status()).toMatchObject({ kind: "available", version: null, words: false, trigram: false });
    const hits = h.search({ query: "Buttermilk pancakes", limit: 10 });
    expect(hits.map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
    expect(hits[0]!.snippet).toMatch(/>>>buttermilk<<</i);
    expect(h.readSession(CLI)!.session).toMatchObject({ title: null, cwd: null, messageCount: 4 });
    expect(h.recentSessions().map((row) => row.id)).toContain(CONTINUATION);
  });

  it("falls back to substrings when the word index is broken", () => {
    writeHermesState(path, hermesUserSessions());
    const db = new (loadSqlite())(path);
    db.exec("DROP VIEW messages_fts_src");
    db.close();
    history = new HermesHistory(path);
    expect(history.status()).toMatchObject({ kind: "available", words: false });
    expect(history.search({ query: "buttermilk" }).map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
  });

  it("says once that a garbage file is not available, and answers nothing", () => {
    writeFileSync(path, "this is not a database at all, just some bytes ".repeat(200));
    history = new HermesHistory(path);
    expect(history.search({ query: "anything" })).toEqual([]);
    expect(history.recentSessions()).toEqual([]);
    expect(history.getSession(CLI)).toBeUndefined();
    expect(history.status()).toMatchObject({ kind: "unavailable", reason: expect.stringContaining("SQLITE_NOTADB") });
    expect(stderr.filter((line) => line.includes("is not available"))).toHaveLength(1);
  });

  it("leaves out a file Hermes holds locked, and reads it once it is free", () => {
    writeHermesState(path, hermesUserSessions(), "legacy");
    const holder = new (loadSqlite())(path);
    holder.exec("BEGIN EXCLUSIVE");
    history = new HermesHistory(path);
    expect(history.search({ query: "buttermilk" })).toEqual([]);
    expect(history.status()).toMatchObject({ kind: "locked", reason: expect.stringContaining("SQLITE_BUSY") });
    holder.exec("COMMIT");
    holder.close();
    expect(history.search({ query: "buttermilk" }).map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
    expect(stderr.filter((line) => line.includes("is locked"))).toHaveLength(1);
  });

  it("refuses a Hermes file that lacks a required column, naming it", () => {
    const db = new (loadSqlite())(path);
    db.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL); CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT)");
    db.close();
    history = new HermesHistory(path);
    expect(history.status()).toEqual({ kind: "unavailable", reason: "its schema lacks messages.timestamp" });
    expect(history.search({ query: "x" })).toEqual([]);
  });

  it("refuses a file whose tables are views that would never finish a read, without reading them", () => {
    const db = new (loadSqlite())(path);
    db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL);
      INSERT INTO sessions VALUES ('s1', 'cli', 1735000000);
      CREATE VIEW messages AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
        SELECT x AS id, 's1' AS session_id, 'user' AS role, 'walrus ' || x AS content, 1735000000 AS timestamp FROM c;`);
    db.close();
    history = new HermesHistory(path);
    expect(history.status()).toEqual({ kind: "unavailable", reason: expect.stringMatching(/^its view messages runs a WITH query/) });
    expect(history.search({ query: "zzz" })).toEqual([]);
    expect(history.recentSessions()).toEqual([]);
    history.close();
    rmSync(path);
    const plain = new (loadSqlite())(path);
    plain.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL); CREATE TABLE m (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, timestamp REAL); CREATE VIEW messages AS SELECT * FROM m");
    plain.close();
    history = new HermesHistory(path);
    expect(history.status()).toEqual({ kind: "unavailable", reason: "messages is a view, not Hermes' tables" });
  });

  it("leaves hermes-acp's own database and a missing file alone, quietly", () => {
    history = new HermesHistory(path);
    expect(history.status()).toEqual({ kind: "absent" });
    const store = new StateStore(path);
    store.appendMessage(store.createSession({ id: "own", cwd: "/", model: "m", provider: "p" }), { role: "user", content: "buttermilk" });
    store.close();
    expect(history.status()).toEqual({ kind: "not_hermes" });
    expect(history.search({ query: "buttermilk" })).toEqual([]);
    expect(stderr.join("")).toBe("");
  });
});

describe("HermesHistory over hostile rows", () => {
  /** A file whose columns declare no types, so each row may hold numbers, blobs or NULLs where Hermes writes text. */
  function typeless(fill: (db: InstanceType<ReturnType<typeof loadSqlite>>) => void): HermesHistory {
    const db = new (loadSqlite())(path);
    db.exec(`CREATE TABLE sessions (id, source, started_at, title, parent_session_id, model, model_config, cwd, message_count, last_activity_at);
      CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id, role, content, timestamp, tool_call_id, tool_calls, tool_name, reasoning);
      INSERT INTO sessions (id, source, started_at, title, cwd) VALUES ('good', 'cli', 1735000000, 'Good one', '/tmp');
      INSERT INTO messages (session_id, role, content, timestamp) VALUES ('good', 'user', 'walrus facts please', 1735000001), ('good', 'assistant', 'walrus answer', 1735000002);`);
    fill(db);
    db.close();
    history = new HermesHistory(path);
    return history;
  }

  it("reads numbers and blobs where text belongs as text, and one odd row never empties the answer", () => {
    const blob = Buffer.from("walrus blob");
    const h = typeless((db) => {
      db.prepare("INSERT INTO sessions VALUES ('blobby', ?, 1735000100, ?, ?, ?, ?, ?, ?, ?)").run(blob, blob, blob, blob, blob, blob, blob, blob);
      db.prepare("INSERT INTO messages (session_id, role, content, timestamp, tool_call_id, tool_calls, tool_name, reasoning) VALUES ('blobby', 'user', ?, 1735000101, NULL, NULL, NULL, NULL)").run(blob);
      db.prepare("INSERT INTO messages (session_id, role, content, timestamp, reasoning) VALUES ('blobby', 'assistant', 'walrus reply', 1735000102, ?)").run(blob);
      db.prepare("INSERT INTO messages (session_id, role, content, timestamp, tool_call_id, tool_calls, tool_name, reasoning) VALUES ('good', 'tool', ?, ?, 7, 8, 9, 10)").run(blob, blob);
      db.exec("INSERT INTO sessions (id, source, started_at, title, model) VALUES ('nums', 5, 1735000200, 42, 3.5); INSERT INTO messages (session_id, role, content, timestamp) VALUES ('nums', 'user', 'walrus numbers', 1735000201), ('nums', 'assistant', 12345, 'yesterday')");
      // a session whose id is not text cannot be looked up again: left out, not an error
      db.exec("INSERT INTO sessions (id, source, started_at) VALUES (77, 'cli', 1735000300); INSERT INTO messages (session_id, role, content, timestamp) VALUES (77, 'user', 'walrus by number', 1735000301)");
    });
    const hits = h.search({ query: "walrus", limit: 10 });
    expect(hits.map((hit) => hit.sessionId).sort()).toEqual(["blobby", "good", "nums"]);
    for (const hit of hits) {
      for (const value of [hit.sessionId, hit.source, hit.snippet, hit.preview, ...hit.context.map((message) => message.text)]) expect(typeof value).toBe("string");
    }
    expect(hits.find((hit) => hit.sessionId === "nums")).toMatchObject({ title: "42", source: "5" });
    expect(h.readSession("good")!.messages.map((row) => row.message)).toEqual([
      { role: "user", content: "walrus facts please" },
      { role: "assistant", content: "walrus answer" },
      { role: "tool", tool_call_id: "7", name: "9", content: "walrus blob" },
    ]);
    expect(h.readSession("nums")!.messages[1]).toMatchObject({ timestamp: 0, message: { role: "assistant", content: "12345" } });
    expect(h.readSession("blobby")).toMatchObject({
      session: { title: "walrus blob", source: "walrus blob", cwd: "walrus blob", messageCount: 2 },
      messages: [{ message: { role: "user", content: "walrus blob" } }, { message: { role: "assistant", content: "walrus reply", reasoning: "walrus blob" } }],
    });
    expect(h.recentSessions({ limit: 10 }).map((row) => row.id).sort()).toEqual(["blobby", "good", "nums"]);
    expect(h.listSessions({ limit: 10, cwd: "/tmp" }).sessions.map((row) => row.id)).toEqual(["good"]);
    expect(stderr.join("")).not.toMatch(/failed/);
  });

  it("never lets a query break its word index (a NUL inside a word)", () => {
    const h = open();
    expect(h.search({ query: "butter\u0000milk pancakes" })).toEqual([]);
    expect(h.search({ query: "buttermilk\u0000" }).map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
    expect(stderr.join("")).not.toMatch(/failed/);
  });

  it("reads the file that is there now when Hermes replaces state.db while it is open", () => {
    const h = open();
    expect(h.search({ query: "buttermilk" }).map((hit) => hit.sessionId)).toEqual([TELEGRAM]);
    const next = join(root, "state.db.new");
    writeHermesState(next, [{ id: "20250101_000000_ab12", source: "slack", startedAt: 1_736_000_000, messages: [{ role: "user", content: "zeppelin timetable" }] }]);
    renameSync(next, path);
    expect(h.search({ query: "zeppelin" }).map((hit) => [hit.sessionId, hit.source])).toEqual([["20250101_000000_ab12", "slack"]]);
    expect(h.search({ query: "buttermilk" })).toEqual([]);
    writeFileSync(next, "not a database ".repeat(100));
    renameSync(next, path);
    expect(h.search({ query: "zeppelin" })).toEqual([]);
    expect(h.status()).toMatchObject({ kind: "unavailable" });
    unlinkSync(path);
    expect(h.status()).toEqual({ kind: "absent" });
  });
});
