import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSqlite } from "./sqlite.js";
import { StateStore } from "./state-store.js";

/** `StateStore.prepare`: opening state.db ahead of a session's first turn changes nothing the first use would do. */
let root: string;
const stores: StateStore[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-store-prepare-"));
});
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  chmodSync(root, 0o700);
  rmSync(root, { recursive: true, force: true });
});

function store(path: string): StateStore {
  const opened = new StateStore(path, { busyTimeoutMs: 200 });
  stores.push(opened);
  return opened;
}

const meta = (target: StateStore, id: string) => target.createSession({ id, cwd: root, model: "m", provider: "custom" });

describe("StateStore.prepare", () => {
  it("creates and migrates a new database, which the first write then uses", () => {
    const path = join(root, "state.db");
    const target = store(path);
    target.prepare();
    expect(target.isOpen).toBe(true);
    expect(existsSync(path)).toBe(true);
    target.appendMessage(meta(target, "s1"), { role: "user", content: "hello" });
    expect(target.loadMessages("s1").map((message) => message.content)).toEqual(["hello"]);
  });

  it("opens a database another connection is writing (WAL readers are not blocked) without turning it read-only: the turn is stored once the lock clears", () => {
    const path = join(root, "state.db");
    store(path).appendMessage(meta(store(path), "earlier"), { role: "user", content: "kept" });
    const Sqlite = loadSqlite();
    const holder = new Sqlite(path);
    holder.exec("BEGIN EXCLUSIVE");
    const target = store(path);
    expect(() => target.prepare()).not.toThrow();
    holder.exec("COMMIT");
    holder.close();
    target.appendMessage(meta(target, "s2"), { role: "user", content: "after the lock" });
    expect(target.loadMessages("s2").map((message) => message.content)).toEqual(["after the lock"]);
    expect(target.loadMessages("earlier").map((message) => message.content)).toEqual(["kept"]);
  });

  it("leaves a database in a read-only folder to the first use, which reads it and says turns are not saved", () => {
    const path = join(root, "state.db");
    store(path).appendMessage(meta(store(path), "old"), { role: "user", content: "stored" });
    stores.splice(0).forEach((opened) => opened.close());
    chmodSync(path, 0o400);
    chmodSync(root, 0o500);
    if (process.getuid?.() === 0) {
      // root writes anywhere: the read-only case cannot be made here without a mount (test/e2e covers it).
      chmodSync(root, 0o700);
      return;
    }
    const target = store(path);
    expect(() => target.prepare()).not.toThrow();
    expect(target.isOpen).toBe(false);
    expect(target.loadMessages("old").map((message) => message.content)).toEqual(["stored"]);
  });

  it("never throws for a path that cannot be a database, and the first use reports it", () => {
    const folder = join(root, "not-a-file");
    mkdirSync(folder);
    const target = store(folder);
    expect(() => target.prepare()).not.toThrow();
    expect(target.isOpen).toBe(false);
    expect(() => target.appendMessage(meta(target, "s3"), { role: "user", content: "x" })).toThrow(/state database/);
  });
});
