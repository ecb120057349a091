import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSqlite } from "./sqlite.js";
import { StateStore } from "./state-store.js";

/**
 * Real processes sharing one state.db (DESIGN §5): two writers at once lose nothing, and a writer
 * killed with SIGKILL leaves every committed round intact. No wall-clock limits: the tests wait
 * for what the children print.
 */
const WRITER = resolve(import.meta.dirname, "../../test/support/store-writer.ts");

let root: string;
let dbPath: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-store-procs-"));
  dbPath = join(root, "home", "state.db");
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

interface Writer {
  child: ChildProcess;
  /** Resolves when the child has printed a line satisfying `test`; rejects if it exits first. */
  waitFor(test: (line: string) => boolean): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  lastCommitted(): number;
}

function startWriter(args: string[]): Writer {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, dbPath, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const seen: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let committed = 0;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    seen.push(line);
    const match = /^committed (\d+)$/.exec(line);
    if (match) committed = Number(match[1]);
    for (const waiter of waiters.splice(0)) {
      if (waiter.test(line)) waiter.resolve(line);
      else waiters.push(waiter);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolvePromise) =>
    child.on("exit", (code, signal) => {
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(`writer exited (${code ?? signal}) before the expected line; stderr:\n${stderr}`));
      resolvePromise({ code, signal, stderr });
    }),
  );
  return {
    child,
    exited,
    lastCommitted: () => committed,
    waitFor: (test) => {
      const already = seen.find(test);
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolvePromise, reject) => waiters.push({ test, resolve: resolvePromise, reject }));
    },
  };
}

function inspect(): { counts: Record<string, number>; columns: Record<string, number>; integrity: string; fts: boolean } {
  const db = new (loadSqlite())(dbPath);
  try {
    const counts = Object.fromEntries(
      db.prepare<{ session_id: string; n: number }>("SELECT session_id, count(*) AS n FROM messages GROUP BY session_id").all().map((r) => [r.session_id, r.n]),
    );
    const columns = Object.fromEntries(db.prepare<{ id: string; message_count: number }>("SELECT id, message_count FROM sessions").all().map((r) => [r.id, r.message_count]));
    const integrity = String(db.pragma("integrity_check", { simple: true }));
    let fts = true;
    try {
      db.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)");
      db.exec("INSERT INTO messages_fts_trigram(messages_fts_trigram, rank) VALUES('integrity-check', 1)");
    } catch {
      fts = false;
    }
    return { counts, columns, integrity, fts };
  } finally {
    db.close();
  }
}

describe("several processes on one state.db", () => {
  it("two processes appending at the same time lose no writes", async () => {
    const rounds = 500;
    const a = startWriter(["alpha", String(rounds), "shared"]);
    const b = startWriter(["beta", String(rounds), "shared"]);
    await Promise.all([a.waitFor((line) => line === "ready"), b.waitFor((line) => line === "ready")]);
    a.child.stdin!.end("go\n");
    b.child.stdin!.end("go\n");
    const [endA, endB] = await Promise.all([a.exited, b.exited]);
    expect(endA).toMatchObject({ code: 0, stderr: "" });
    expect(endB).toMatchObject({ code: 0, stderr: "" });

    const [roundsA, roundsB] = [a.lastCommitted(), b.lastCommitted()];
    expect(Math.min(roundsA, roundsB)).toBeGreaterThanOrEqual(rounds);

    const { counts, columns, integrity, fts } = inspect();
    expect(counts).toEqual({ alpha: roundsA * 3, beta: roundsB * 3, shared: roundsA + roundsB });
    expect(columns).toEqual(counts);
    expect(integrity).toBe("ok");
    expect(fts).toBe(true);

    const store = new StateStore(dbPath);
    try {
      const shared = store.loadMessages("shared").map((message) => String(message.content));
      for (const [writer, count] of [["alpha", roundsA], ["beta", roundsB]] as const) {
        const own = shared.filter((text) => text.startsWith(`${writer} `));
        expect(own).toEqual(Array.from({ length: count }, (_, i) => `${writer} writes shared line ${i + 1}`));
      }
      expect(store.getSession("alpha")!.toolCallCount).toBe(roundsA);
      expect(store.searchMessages({ query: "quokka", limit: 10 }).hits.map((hit) => hit.sessionId).sort()).toEqual(["alpha", "beta"]);
    } finally {
      store.close();
    }
  });

  it("a process killed with SIGKILL mid-way leaves its committed messages intact", async () => {
    const writer = startWriter(["victim", "forever"]);
    await writer.waitFor((line) => line === "ready");
    writer.child.stdin!.end("go\n");
    await writer.waitFor((line) => line === "committed 150");
    writer.child.kill("SIGKILL");
    const end = await writer.exited;
    expect(end.signal).toBe("SIGKILL");
    const committed = writer.lastCommitted();

    const { counts, columns, integrity, fts } = inspect();
    expect(integrity).toBe("ok");
    expect(fts).toBe(true);
    const stored = counts.victim!;
    // every printed round is there; a round in flight is either whole or absent
    expect(stored).toBeGreaterThanOrEqual(committed * 3);
    expect(stored % 3).toBe(0);
    expect(columns.victim).toBe(stored);

    const store = new StateStore(dbPath);
    try {
      const history = store.loadMessages("victim");
      expect(history[0]).toEqual({ role: "user", content: "victim asks question number 1 about quokka" });
      const meta = store.createSession({ id: "victim", cwd: root, model: "m", provider: "p" });
      store.appendMessage(meta, { role: "user", content: "continuing after the crash" });
      expect(store.getSession("victim")!.messageCount).toBe(stored + 1);
    } finally {
      store.close();
    }
  });
});
