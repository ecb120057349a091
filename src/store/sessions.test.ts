import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HermesError } from "../shared/errors.js";
import { loadSqlite } from "./sqlite.js";
import { StateStore } from "./state-store.js";
import type { SessionMeta, StoredMessage } from "./types.js";

let root: string;
let store: StateStore;
let clock: number;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-store-sessions-"));
  clock = 1_700_000_000_000;
  store = new StateStore(join(root, "state.db"), { now: () => (clock += 1000) });
});
afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const user = (content: string): StoredMessage => ({ role: "user", content });
const answer = (content: string): StoredMessage => ({ role: "assistant", content, finish_reason: "stop" });
const toolCall = (id: string, name: string): StoredMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
});

function meta(id: string, cwd = "/work/project", extra: Partial<Parameters<StateStore["createSession"]>[0]> = {}): SessionMeta {
  return store.createSession({ id, cwd, model: "test-model", provider: "custom", systemPrompt: "frozen prompt", ...extra });
}

function rawCount(sql: string): number {
  const db = new (loadSqlite())(join(root, "state.db"), { readonly: true });
  try {
    return Number(db.prepare(sql).pluck().get());
  } finally {
    db.close();
  }
}

describe("session lifecycle", () => {
  it("writes nothing for a session that never gets a message", () => {
    meta("ghost");
    expect(store.getSession("ghost")).toBeUndefined();
    expect(store.listSessions().sessions).toEqual([]);
  });

  it("writes the session row with its first message, then keeps counters in step", () => {
    const m = meta("s1", "/work/project", { modelConfig: { base_url: "http://x/v1" } });
    const first = store.appendMessage(m, user("hello"));
    const ids = store.appendMessages(m, [toolCall("c1", "terminal"), { role: "tool", tool_call_id: "c1", name: "terminal", content: "ok" }, answer("hi")]);
    expect(ids).toEqual([first + 1, first + 2, first + 3]);
    const session = store.getSession("s1")!;
    expect(session).toMatchObject({
      id: "s1",
      source: "acp",
      model: "test-model",
      provider: "custom",
      modelConfig: { cwd: "/work/project", provider: "custom", base_url: "http://x/v1" },
      cwd: "/work/project",
      systemPrompt: "frozen prompt",
      title: null,
      parentSessionId: null,
      messageCount: 4,
      toolCallCount: 1,
      startedAt: 1_700_000_001_000,
      lastActiveAt: 1_700_000_002_000,
      endedAt: null,
    });
  });

  it("loads messages in order with their ids and times", () => {
    const m = meta("s1");
    const history: StoredMessage[] = [user("one"), toolCall("c", "read_file"), { role: "tool", tool_call_id: "c", name: "read_file", content: "x" }, answer("two")];
    for (const message of history) store.appendMessage(m, message);
    expect(store.loadMessages("s1")).toStrictEqual(history);
    const rows = store.loadMessageRows("s1");
    expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((a, b) => a - b));
    expect(rows[0]).toMatchObject({ sessionId: "s1", timestamp: 1_700_000_001_000 });
    expect(store.loadMessages("unknown")).toEqual([]);
  });

  it("adds usage deltas, sets titles, ends and reopens", () => {
    const m = meta("s1");
    expect(store.updateUsage("s1", { input: 10 })).toBe(false);
    store.appendMessage(m, user("hi"));
    store.updateUsage("s1", { input: 100, output: 20, reasoning: 5 });
    store.updateUsage("s1", { input: 50, output: 10 });
    expect(store.setTitle("s1", "Greeting")).toBe(true);
    expect(store.setTitle("nope", "x")).toBe(false);
    expect(store.endSession("s1", "agent_close")).toBe(true);
    expect(store.getSession("s1")).toMatchObject({ inputTokens: 150, outputTokens: 30, reasoningTokens: 5, title: "Greeting", endReason: "agent_close" });
    expect(store.getSession("s1")!.endedAt).not.toBeNull();
    store.appendMessage(m, answer("back again"));
    expect(store.getSession("s1")).toMatchObject({ endedAt: null, endReason: null, messageCount: 2 });
  });

  it("updates model, provider and cwd of a stored session", () => {
    store.appendMessage(meta("s1"), user("hi"));
    expect(store.updateSessionMeta("s1", { model: "other", provider: "openrouter" })).toBe(true);
    expect(store.getSession("s1")).toMatchObject({ model: "other", provider: "openrouter", cwd: "/work/project", modelConfig: { cwd: "/work/project" } });
    expect(store.updateSessionMeta("missing", { model: "x" })).toBe(false);
  });

  it("links a parent only when it is stored", () => {
    store.appendMessage(meta("parent"), user("p"));
    store.appendMessage(meta("child", "/w", { parentSessionId: "parent" }), user("c"));
    store.appendMessage(meta("orphan", "/w", { parentSessionId: "never-written" }), user("o"));
    expect(store.getSession("child")!.parentSessionId).toBe("parent");
    expect(store.getSession("orphan")!.parentSessionId).toBeNull();
  });

  it("rejects bad input without writing", () => {
    expect(() => store.createSession({ id: "", cwd: "/", model: "m", provider: "p" })).toThrow(HermesError);
    const m = meta("s1");
    expect(() => store.appendMessages(m, [user("fine"), { role: "robot" } as unknown as StoredMessage])).toThrow(HermesError);
    expect(store.getSession("s1")).toBeUndefined();
  });
});

describe("delete and fork", () => {
  it("deletes a session with its messages and their search entries", () => {
    const m = meta("doomed");
    store.appendMessages(m, [user("the zanzibar migration plan"), answer("zanzibar noted")]);
    store.appendMessage(meta("kept"), user("zanzibar too"));
    store.appendMessage(meta("child", "/w", { parentSessionId: "doomed" }), user("child"));
    expect(store.deleteSession("doomed")).toBe(true);
    expect(store.deleteSession("doomed")).toBe(false);
    expect(store.getSession("doomed")).toBeUndefined();
    expect(store.loadMessages("doomed")).toEqual([]);
    expect(store.getSession("child")!.parentSessionId).toBeNull();
    expect(store.searchMessages({ query: "zanzibar" }).hits.map((hit) => hit.sessionId)).toEqual(["kept"]);
    store.close();
    expect(rawCount("SELECT count(*) FROM messages WHERE session_id = 'doomed'")).toBe(0);
    expect(rawCount("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'zanzibar'")).toBe(1);
  });

  it("forks a deep copy that then diverges from its parent", () => {
    const m = meta("parent");
    store.appendMessages(m, [user("first question"), toolCall("c1", "terminal"), { role: "tool", tool_call_id: "c1", content: "out" }, answer("first answer")]);
    store.setTitle("parent", "Parent title");
    store.updateUsage("parent", { input: 99 });
    const fork = store.forkSession("parent", { newId: "fork", cwd: "/elsewhere" });
    expect(fork).toMatchObject({
      id: "fork",
      parentSessionId: "parent",
      cwd: "/elsewhere",
      modelConfig: { cwd: "/elsewhere", provider: "custom" },
      model: "test-model",
      systemPrompt: "frozen prompt",
      title: "Parent title",
      messageCount: 4,
      toolCallCount: 1,
      inputTokens: 0,
    });
    expect(store.loadMessages("fork")).toStrictEqual(store.loadMessages("parent"));
    const forkRows = store.loadMessageRows("fork");
    const parentRows = store.loadMessageRows("parent");
    expect(forkRows.map((row) => row.timestamp)).toEqual(parentRows.map((row) => row.timestamp));
    expect(Math.min(...forkRows.map((row) => row.id))).toBeGreaterThan(Math.max(...parentRows.map((row) => row.id)));

    store.appendMessage(store.createSession({ id: "fork", cwd: "/elsewhere", model: "test-model", provider: "custom" }), user("only in the fork"));
    store.appendMessage(m, user("only in the parent"));
    expect(store.loadMessages("fork").at(-1)).toEqual(user("only in the fork"));
    expect(store.loadMessages("parent").at(-1)).toEqual(user("only in the parent"));
    expect(store.getSession("fork")!.messageCount).toBe(5);
    expect(store.getSession("parent")!.messageCount).toBe(5);
    // the copy and its parent are one conversation for search: one hit, titled with the parent's title
    const hits = store.searchMessages({ query: "first question", limit: 10 }).hits;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ rootSessionId: "parent", title: "Parent title" });
    expect(store.searchMessages({ query: "only in the fork", limit: 10 }).hits.map((hit) => [hit.sessionId, hit.rootSessionId])).toEqual([["fork", "parent"]]);
  });

  it("refuses to fork an unknown session or onto an existing id", () => {
    store.appendMessage(meta("a"), user("x"));
    store.appendMessage(meta("b"), user("y"));
    expect(() => store.forkSession("missing", { newId: "n", cwd: "/" })).toThrow(expect.objectContaining({ code: "session_not_found" }));
    expect(() => store.forkSession("a", { newId: "b", cwd: "/" })).toThrow(expect.objectContaining({ code: "invalid_params" }));
    expect(store.loadMessages("b")).toEqual([user("y")]);
  });
});

describe("listSessions", () => {
  it("lists newest activity first in pages with nextCursor", () => {
    for (let i = 0; i < 7; i += 1) store.appendMessage(meta(`s${i}`), user(`message ${i}`));
    store.appendMessage(meta("s2"), answer("s2 is active again"));
    const order = ["s2", "s6", "s5", "s4", "s3", "s1", "s0"];
    const first = store.listSessions({ limit: 3 });
    expect(first.sessions.map((s) => s.id)).toEqual(order.slice(0, 3));
    expect(first.nextCursor).toBe("s5");
    const second = store.listSessions({ limit: 3, cursor: first.nextCursor! });
    expect(second.sessions.map((s) => s.id)).toEqual(order.slice(3, 6));
    const third = store.listSessions({ limit: 3, cursor: second.nextCursor! });
    expect(third).toEqual({ sessions: [expect.objectContaining({ id: "s0", messageCount: 1, cwd: "/work/project" })] });
    expect(store.listSessions().sessions.map((s) => s.id)).toEqual(order);
    expect(store.listSessions().nextCursor).toBeUndefined();
  });

  it("gives an empty page for an unknown cursor", () => {
    store.appendMessage(meta("s1"), user("x"));
    expect(store.listSessions({ cursor: "no-such-session" })).toEqual({ sessions: [] });
  });

  it("orders sessions active in the same millisecond by id", () => {
    const fixed = new StateStore(join(root, "fixed.db"), { now: () => 1_000 });
    try {
      for (const id of ["b", "c", "a"]) fixed.appendMessage(fixed.createSession({ id, cwd: "/", model: "m", provider: "p" }), user(id));
      const page = fixed.listSessions({ limit: 2 });
      expect(page.sessions.map((s) => s.id)).toEqual(["c", "b"]);
      expect(fixed.listSessions({ limit: 2, cursor: page.nextCursor! }).sessions.map((s) => s.id)).toEqual(["a"]);
    } finally {
      fixed.close();
    }
  });

  it("filters by cwd comparing real paths (symlinks and .. spellings match)", () => {
    const real = join(root, "workspace");
    const other = join(root, "other");
    mkdirSync(join(real, "sub"), { recursive: true });
    mkdirSync(other);
    const link = join(root, "link");
    symlinkSync(real, link);
    store.appendMessage(meta("direct", real), user("a"));
    store.appendMessage(meta("via-link", link), user("b"));
    store.appendMessage(meta("via-dots", join(real, "sub", "..")), user("c"));
    store.appendMessage(meta("elsewhere", other), user("d"));
    store.appendMessage(meta("gone", join(root, "deleted", "..", "workspace")), user("e"));
    const ids = (cwd: string): string[] => store.listSessions({ cwd }).sessions.map((s) => s.id).sort();
    const expected = ["direct", "gone", "via-dots", "via-link"];
    expect(ids(real)).toEqual(expected);
    expect(ids(link)).toEqual(expected);
    expect(ids(`${link}/`)).toEqual(expected);
    expect(ids(other)).toEqual(["elsewhere"]);
    expect(ids(join(root, "nowhere"))).toEqual([]);
    const paged = store.listSessions({ cwd: link, limit: 2 });
    expect(paged.sessions).toHaveLength(2);
    expect(store.listSessions({ cwd: link, limit: 2, cursor: paged.nextCursor! }).sessions).toHaveLength(2);
    // a cursor from outside the filtered list is unknown to it
    expect(store.listSessions({ cwd: real, cursor: "elsewhere" })).toEqual({ sessions: [] });
  });

  it("filters by source", () => {
    store.appendMessage(meta("acp-one"), user("a"));
    store.appendMessage(meta("cli-one", "/", { source: "cli" }), user("b"));
    expect(store.listSessions({ source: "acp" }).sessions.map((s) => s.id)).toEqual(["acp-one"]);
    expect(store.listSessions().sessions).toHaveLength(2);
  });
});

describe("tool details", () => {
  it("keeps what a tool reported for the editor beside its result, for replay", () => {
    const m = meta("details");
    store.appendMessage(m, user("edit it"));
    store.appendMessage(m, toolCall("c1", "patch"));
    store.appendMessage(m, { role: "tool", tool_call_id: "c1", name: "patch", content: "ok" }, { mode: "replace", files: [{ path: "/a", oldText: "x", newText: "y" }] });
    const rows = store.loadMessageRows("details");
    expect(rows[2]?.toolDetails).toEqual({ mode: "replace", files: [{ path: "/a", oldText: "x", newText: "y" }] });
    expect(rows[0]?.toolDetails).toBeUndefined();
  });
});

describe("a state.db written by a newer hermes-acp", () => {
  it("is read, never written: listing works, a write names both schema versions, the file is unchanged", async () => {
    const { mkdtempSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { StateStore } = await import("./state-store.js");
    const { loadSqlite } = await import("./sqlite.js");
    const path = join(mkdtempSync(join(tmpdir(), "hermes-newer-")), "state.db");
    const writer = new StateStore(path);
    const meta = writer.createSession({ id: "s-newer", cwd: "/w", model: "m", provider: "custom" });
    writer.appendMessage(meta, { role: "user", content: "kept" });
    writer.close();
    const raw = new (loadSqlite())(path);
    raw.pragma("user_version = 999");
    raw.close();
    const before = readFileSync(path);
    const store = new StateStore(path);
    expect(store.getSession("s-newer")?.messageCount).toBe(1);
    expect(() => store.appendMessage(meta, { role: "user", content: "new" })).toThrow(/schema version 999, newer than this hermes-acp understands/);
    store.close();
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});
