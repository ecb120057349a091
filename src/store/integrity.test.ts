import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkInBackground, ftsProblems, quickCheck, repairDatabase, salvageDatabase } from "./integrity.js";
import { loadSqlite } from "./sqlite.js";
import { StateStore } from "./state-store.js";

/** Real damaged files: garbage written onto index pages and table pages of a real state.db. */
let root: string;
let path: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-integrity-"));
  path = join(root, "state.db");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function seed(sessions = 3, messages = 400): void {
  const store = new StateStore(path);
  for (let s = 0; s < sessions; s++) {
    const meta = store.createSession({ id: `s${s}`, cwd: root, model: "m", provider: "p" });
    store.appendMessages(
      meta,
      Array.from({ length: messages }, (_, i) => ({ role: "user" as const, content: `session ${s} message ${i} about the quokka migration `.repeat(4) })),
    );
  }
  store.close();
}

function withDb<T>(body: (db: ReturnType<typeof open>) => T): T {
  const db = open();
  try {
    return body(db);
  } finally {
    db.close();
  }
}
const open = () => new (loadSqlite())(path);

/** Overwrites pages of `table` (from its b-tree, as SQLite's dbstat lists them) with garbage. */
function smashPages(table: string, pick: (pages: number[]) => number[]): void {
  const { pages, size } = withDb((db) => ({
    pages: db.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno").pluck<number>().all(table),
    size: Number(db.pragma("page_size", { simple: true })),
  }));
  const fd = openSync(path, "r+");
  try {
    for (const page of pick(pages)) writeSync(fd, Buffer.alloc(size, 0x5a), 0, size, (page - 1) * size);
  } finally {
    closeSync(fd);
  }
}

describe("integrity checks and repair of state.db", () => {
  it("finds a damaged search index, and a repair rebuilds it with every message kept", () => {
    seed();
    // Garbage inside the index's own blocks: valid to SQLite, nonsense to FTS5.
    withDb((db) => {
      (db as unknown as { unsafeMode(on: boolean): void }).unsafeMode(true); // lifts SQLite's defensive mode, which protects shadow tables
      db.prepare("UPDATE messages_fts_data SET block = randomblob(length(block)) WHERE id > 10 AND id % 3 = 0").run();
    });
    withDb((db) => {
      expect(quickCheck(db)).toMatchObject({ ok: false, problems: [expect.stringMatching(/messages_fts/)] });
      expect(ftsProblems(db)).toContain("messages_fts");
    });
    const report = repairDatabase(path);
    expect(report.rebuilt).toContain("messages_fts");
    expect(report.after).toEqual({ ok: true });
    withDb((db) => expect(ftsProblems(db)).toEqual([]));
    const store = new StateStore(path);
    expect(store.loadMessages("s1")).toHaveLength(400);
    expect(store.searchMessages({ query: "quokka" }).hits.length).toBe(3);
    store.close();
  });

  it("reports a write that fails on a damaged index with a pointer to the repair", () => {
    seed();
    smashPages("messages_fts_data", (pages) => pages);
    const store = new StateStore(path);
    const meta = store.createSession({ id: "new", cwd: root, model: "m", provider: "p" });
    let message = "";
    for (let i = 0; i < 50 && !message; i++) {
      try {
        store.appendMessage(meta, { role: "user", content: `quokka migration ${i} `.repeat(50) });
      } catch (error) {
        message = (error as Error).message;
      }
    }
    store.close();
    expect(message).toMatch(/corrupt|malformed/);
    expect(message).toMatch(/hermes sessions repair/);
  });

  it("finds damaged table pages in the background, and a salvage keeps every readable row and the damaged file", async () => {
    seed();
    smashPages("messages", (pages) => [pages[Math.floor(pages.length / 2)]!]);
    const reasons: string[] = [];
    await checkInBackground(path, (reason) => reasons.push(reason));
    expect(reasons).toHaveLength(1);
    const found = reasons[0];
    expect(found).toMatch(/is damaged .*hermes sessions repair/);
    expect(repairDatabase(path).after.ok).toBe(false);

    const report = salvageDatabase(path, 1234);
    expect(report.sessions).toBe(3);
    expect(report.messages).toBeGreaterThan(1000);
    expect(report.messages).toBeLessThan(1200);
    expect(existsSync(report.damagedCopy)).toBe(true);
    expect(readdirSync(root).sort()).toEqual(["state.db", "state.db.damaged-1234"]);
    withDb((db) => {
      expect(quickCheck(db)).toEqual({ ok: true });
      expect(ftsProblems(db)).toEqual([]);
    });
    const store = new StateStore(path);
    expect(store.listSessions().sessions).toHaveLength(3);
    expect(store.searchMessages({ query: "quokka" }).hits.length).toBe(3);
    store.close();
  });

  it("salvages messages whose session row is gone as unreadable, and keeps the damaged file's WAL beside it", () => {
    seed(2, 10);
    withDb((db) => {
      db.pragma("foreign_keys = OFF");
      db.prepare("DELETE FROM sessions WHERE id = 's0'").run();
    });
    const holder = open(); // keeps a WAL with committed data in it
    holder.pragma("wal_autocheckpoint = 0");
    holder.prepare("UPDATE sessions SET title = 'only in the WAL' WHERE id = 's1'").run();
    holder.close();
    const report = salvageDatabase(path, 99);
    expect(report).toMatchObject({ sessions: 1, messages: 10, unreadable: 10 });
    const kept = new (loadSqlite())(report.damagedCopy, { readonly: true });
    try {
      expect(kept.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(20);
    } finally {
      kept.close();
    }
  });

  it("refuses to salvage a file that is not a database, and leaves it where it is", () => {
    const garbage = "not a database at all\n".repeat(500);
    writeFileSync(path, garbage);
    expect(() => salvageDatabase(path, 7)).toThrow(/not a SQLite database/);
    expect(readFileSync(path, "utf8")).toBe(garbage);
    expect(readdirSync(root)).toEqual(["state.db"]);
  });

  it("tells nothing in the background about a sound database", async () => {
    seed(1, 10);
    const found: string[] = [];
    await checkInBackground(path, (reason) => found.push(reason));
    expect(found).toEqual([]);
  });
});
