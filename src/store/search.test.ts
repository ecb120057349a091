import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateStore } from "./state-store.js";
import type { SessionMeta, StoredMessage } from "./types.js";

let root: string;
let store: StateStore;
let clock: number;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-store-search-"));
  clock = 1_700_000_000_000;
  store = new StateStore(join(root, "state.db"), { now: () => (clock += 1000) });
});
afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const user = (content: string): StoredMessage => ({ role: "user", content });
const answer = (content: string): StoredMessage => ({ role: "assistant", content });
const tool = (content: string, name = "terminal"): StoredMessage => ({ role: "tool", tool_call_id: "c", name, content });

function session(id: string, messages: StoredMessage[], title?: string): SessionMeta {
  const meta = store.createSession({ id, cwd: "/work", model: "m", provider: "p" });
  for (const message of messages) store.appendMessage(meta, message);
  if (title) store.setTitle(id, title);
  return meta;
}

const sessionsOf = (query: string, options: Partial<Parameters<StateStore["searchMessages"]>[0]> = {}): string[] =>
  store.searchMessages({ query, limit: 10, ...options }).hits.map((hit) => hit.sessionId);

describe("searchMessages (words)", () => {
  it("finds a word said three sessions ago, with title, time, snippet and context", () => {
    session("old", [user("We chose the flamingo caching strategy for the gateway"), answer("Flamingo caching is set up."), user("thanks"), answer("welcome")], "Caching");
    session("mid", [user("unrelated talk about tests")]);
    session("new", [user("more unrelated talk")]);
    const current = session("current", [user("what did we decide about caching?")]);
    const { strategy, hits } = store.searchMessages({ query: "flamingo", excludeSessionId: current.id });
    expect(strategy).toBe("words");
    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    expect(hit).toMatchObject({ sessionId: "old", title: "Caching", source: "acp", cwd: "/work", preview: "We chose the flamingo caching strategy for the gateway" });
    expect(hit.when).toBe(store.getSession("old")!.lastActiveAt);
    expect(hit.snippet).toMatch(/>>>flamingo<<</i);
    expect(hit.score).toBeLessThan(0);
    const matchIndex = hit.context.findIndex((message) => message.isMatch);
    expect(hit.context[matchIndex]!.id).toBe(hit.messageId);
    expect(hit.context.length).toBeGreaterThanOrEqual(3);
    expect(hit.context.map((message) => message.id)).toEqual([...hit.context.map((message) => message.id)].sort((a, b) => a - b));
  });

  it("returns one hit per session, best BM25 first, up to the limit", () => {
    session("weak", [user("kubernetes appears once in a long message about many other different things entirely")]);
    session("strong", [user("kubernetes kubernetes kubernetes"), answer("kubernetes again")]);
    session("third", [user("kubernetes cluster")]);
    const hits = store.searchMessages({ query: "kubernetes", limit: 10 }).hits;
    expect(hits.map((hit) => hit.sessionId)).toHaveLength(3);
    expect(new Set(hits.map((hit) => hit.sessionId)).size).toBe(3);
    expect(hits[0]!.sessionId).toBe("strong");
    expect(hits.at(-1)!.sessionId).toBe("weak");
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score!)].sort((a, b) => a - b));
    expect(store.searchMessages({ query: "kubernetes" }).hits).toHaveLength(3); // default limit 3
    expect(store.searchMessages({ query: "kubernetes", limit: 1 }).hits).toHaveLength(1);
    expect(store.searchMessages({ query: "kubernetes", limit: 50 }).hits).toHaveLength(3);
  });

  it("is not crowded out by one session full of matches", () => {
    session("quiet-1", [user("a single lemur here")]);
    const chatty = store.createSession({ id: "chatty", cwd: "/w", model: "m", provider: "p" });
    store.appendMessages(chatty, Array.from({ length: 1200 }, (_, i) => user(`lemur lemur number ${i}`)));
    session("quiet-2", [user("another lemur, briefly")]);
    expect(sessionsOf("lemur").sort()).toEqual(["chatty", "quiet-1", "quiet-2"]);
    expect(sessionsOf("lemur", { sort: "recent" })).toEqual(["quiet-2", "chatty", "quiet-1"]);
    expect(sessionsOf("lemur", { excludeSessionId: "chatty" }).sort()).toEqual(["quiet-1", "quiet-2"]);
  });

  it("clamps the limit to 10 sessions", () => {
    for (let i = 0; i < 12; i += 1) session(`s${i}`, [user(`pelican number ${i}`)]);
    expect(store.searchMessages({ query: "pelican", limit: 99 }).hits).toHaveLength(10);
  });

  it("sorts by the most recent match when asked", () => {
    session("first", [user("the walrus protocol, walrus walrus")]);
    session("second", [user("a walrus")]);
    session("third", [user("walrus once more")]);
    expect(sessionsOf("walrus", { sort: "recent" })).toEqual(["third", "second", "first"]);
    expect(sessionsOf("walrus")[0]).toBe("first");
  });

  it("searches user and assistant messages by default, tool output when asked", () => {
    session("tools", [user("run it"), tool("stacktrace: ENOSPC no space left on device")]);
    session("talk", [answer("the ENOSPC error means the disk is full")]);
    expect(sessionsOf("ENOSPC")).toEqual(["talk"]);
    expect(sessionsOf("ENOSPC", { roleFilter: ["tool"] })).toEqual(["tools"]);
    expect(sessionsOf("ENOSPC", { roleFilter: ["user", "assistant", "tool"] }).sort()).toEqual(["talk", "tools"]);
    const hit = store.searchMessages({ query: "stacktrace", roleFilter: ["tool"] }).hits[0]!;
    expect(hit.role).toBe("tool");
    expect(hit.context.find((message) => message.isMatch)).toMatchObject({ role: "tool", toolName: "terminal" });
  });

  it("indexes only the first 8,192 characters of a tool result", () => {
    session("big", [tool(`${"filler ".repeat(1100)}needlewithin`), tool(`${"x".repeat(8200)} needlebeyond`)]);
    expect(sessionsOf("needlewithin", { roleFilter: ["tool"] })).toEqual(["big"]);
    expect(sessionsOf("needlebeyond", { roleFilter: ["tool"] })).toEqual([]);
  });

  it("excludes the caller's own session", () => {
    session("other", [user("orchid deployment")]);
    session("me", [user("orchid deployment, where did we discuss it?")]);
    expect(sessionsOf("orchid", { excludeSessionId: "me" })).toEqual(["other"]);
  });

  it("gives a session and its forks one hit, titled with the root's title, and leaves out what the caller's fork copied", () => {
    session("root", [user("the capybara migration plan"), answer("capybara steps listed")], "Capybara plan");
    store.forkSession("root", { newId: "fork-a", cwd: "/work" });
    store.forkSession("fork-a", { newId: "fork-b", cwd: "/work" });
    store.appendMessage(store.createSession({ id: "fork-b", cwd: "/work", model: "m", provider: "p" }), user("capybara rollback only in fork b"));
    session("solo", [user("a capybara elsewhere")]);
    const hits = store.searchMessages({ query: "capybara", limit: 10 }).hits;
    expect(hits.map((hit) => hit.rootSessionId).sort()).toEqual(["root", "solo"]);
    expect(hits.find((hit) => hit.rootSessionId === "root")).toMatchObject({ title: "Capybara plan" });
    // from fork-a: its own messages and its ancestors' (copied into it) are in context; fork-b's are not
    expect(store.searchMessages({ query: "capybara", limit: 10, excludeSessionId: "fork-a" }).hits.map((hit) => hit.sessionId).sort()).toEqual(["fork-b", "solo"]);
    expect(store.searchMessages({ query: "capybara", limit: 10, excludeSessionId: "fork-b" }).hits.map((hit) => hit.sessionId)).toEqual(["solo"]);
  });

  it("never finds nor browses sessions of hidden sources", () => {
    const meta = store.createSession({ id: "delegate", cwd: "/work", model: "m", provider: "p", source: "subagent" });
    store.appendMessage(meta, user("the okapi research notes"));
    session("visible", [user("okapi sighting")]);
    expect(sessionsOf("okapi")).toEqual(["visible"]);
    expect(store.recentSessions().map((row) => row.id)).toEqual(["visible"]);
  });

  it("supports phrases, OR, NOT, prefixes and folds diacritics and case", () => {
    session("a", [user("The Café configuration loader")]);
    session("b", [user("configuration of the loader café")]);
    session("c", [user("tokenizer tokenization tokens")]);
    expect(sessionsOf('"cafe configuration"')).toEqual(["a"]);
    expect(sessionsOf("CAFE").sort()).toEqual(["a", "b"]);
    expect(sessionsOf("café NOT loader")).toEqual([]);
    expect(sessionsOf("tokenizer OR café").sort()).toEqual(["a", "b", "c"]);
    expect(sessionsOf("token*")).toEqual(["c"]);
  });

  it("never errors on FTS5 syntax in the query", () => {
    session("code", [user("call foo.bar(baz) then check config:path and a-b-c and 100% of \"quotes\"")]);
    const queries = [
      "foo.bar(baz)",
      "config:path",
      'unbalanced "quote',
      "a-b-c",
      "NEAR(foo bar)",
      "(((",
      "*",
      "^foo",
      "foo AND",
      "OR",
      "NOT foo",
      '"',
      "100%",
      "{foo}",
      "foo + bar",
      "'single'",
      "col : value",
      "\\",
      "\u0000",
      "foo\u0000bar",
      "check\u0000",
    ];
    for (const query of queries) expect(() => store.searchMessages({ query, roleFilter: ["user", "assistant", "tool", "system"] }), query).not.toThrow();
    expect(sessionsOf("foo.bar(baz)")).toEqual(["code"]);
    expect(sessionsOf("config:path")).toEqual(["code"]);
    expect(store.searchMessages({ query: "()" })).toEqual({ strategy: "none", hits: [] });
  });
});

describe("searchMessages (CJK)", () => {
  beforeEach(() => {
    session("ja", [user("東京タワーの高さは何メートルですか？"), answer("東京タワーの高さは333メートルです。")], "東京");
    session("zh", [user("我们讨论了数据库迁移的方案"), answer("数据库迁移已经完成")]);
    session("ko", [user("한국어를 배우고 있어요")]);
    session("en", [user("plain english about tokyo tower")]);
  });

  it("finds Japanese, Chinese and Korean words inside sentences through the trigram index", () => {
    const ja = store.searchMessages({ query: "東京タワー" });
    expect(ja.strategy).toBe("trigram");
    expect(ja.hits.map((hit) => hit.sessionId)).toEqual(["ja"]);
    expect(ja.hits[0]!.snippet).toContain(">>>東京タワー<<<");
    expect(sessionsOf("数据库迁移")).toEqual(["zh"]);
    expect(sessionsOf("한국어")).toEqual(["ko"]);
    expect(sessionsOf("メートル 東京タワー")).toEqual(["ja"]);
  });

  it("finds one- and two-character CJK terms by substring", () => {
    const result = store.searchMessages({ query: "东京 OR 数据" });
    expect(result.strategy).toBe("substring");
    expect(result.hits.map((hit) => hit.sessionId)).toEqual([]); // terms are ANDed in CJK queries
    const zh = store.searchMessages({ query: "数据" });
    expect(zh.hits.map((hit) => hit.sessionId)).toEqual(["zh"]);
    expect(zh.hits[0]!.snippet).toContain(">>>数据<<<");
    expect(zh.hits[0]!.score).toBeNull();
    expect(sessionsOf("高")).toEqual(["ja"]);
  });

  it("combines long and short terms, and mixed scripts", () => {
    expect(sessionsOf("東京タワー 高さ")).toEqual(["ja"]);
    expect(sessionsOf("東京タワー 迁移")).toEqual([]);
    session("mixed", [user("docker の設定ファイル")]);
    expect(sessionsOf("docker の設定")).toEqual(["mixed"]);
  });
});

describe("messagesAround, readSession, recentSessions", () => {
  function long(id: string, count: number): number[] {
    const meta = store.createSession({ id, cwd: "/w", model: "m", provider: "p" });
    return store.appendMessages(meta, Array.from({ length: count }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : answer(`answer ${i}`))));
  }

  it("scrolls around a message with a clamped window", () => {
    const ids = long("s", 50);
    long("other", 5);
    const around = store.messagesAround("s", ids[25]!, 3);
    expect(around.map((row) => row.id)).toEqual(ids.slice(22, 29));
    expect(store.messagesAround("s", ids[25]!).map((row) => row.id)).toEqual(ids.slice(20, 31)); // default 5
    expect(store.messagesAround("s", ids[25]!, 100)).toHaveLength(41); // clamped to 20
    expect(store.messagesAround("s", ids[25]!, 0)).toHaveLength(3); // clamped to 1
    expect(store.messagesAround("s", ids[0]!, 2).map((row) => row.id)).toEqual(ids.slice(0, 3));
    expect(store.messagesAround("other", ids[25]!, 2)).toEqual([]);
    expect(store.messagesAround("missing", 1, 2)).toEqual([]);
  });

  it("reads a short session whole and a long one as its first 20 and last 10", () => {
    long("short", 30);
    const short = store.readSession("short")!;
    expect(short).toMatchObject({ total: 30, skipped: 0 });
    expect(short.messages).toHaveLength(30);
    const ids = long("big", 100);
    const big = store.readSession("big")!;
    expect(big).toMatchObject({ total: 100, skipped: 70, gapAfterId: ids[19] });
    expect(big.messages.map((row) => row.id)).toEqual([...ids.slice(0, 20), ...ids.slice(90)]);
    expect(big.session.id).toBe("big");
    expect(store.readSession("missing")).toBeUndefined();
  });

  it("browses recent sessions with titles and previews", () => {
    session("one", [{ role: "user", content: [{ type: "text", text: "  first\nline  of one " }] }, answer("x")]);
    session("two", [answer("no user message yet")], "Titled");
    session("three", [user("x".repeat(300))]);
    const recent = store.recentSessions({ limit: 10, excludeSessionId: "three" });
    expect(recent.map((s) => s.id)).toEqual(["two", "one"]);
    expect(recent[0]).toMatchObject({ title: "Titled", preview: "", messageCount: 1 });
    expect(recent[1]).toMatchObject({ title: null, preview: "first line of one" });
    expect(store.recentSessions({ limit: 1 })[0]!.preview).toHaveLength(120);
  });

  it("browses one row per lineage, its latest session standing for it", () => {
    session("root", [user("root question")], "Root title");
    store.forkSession("root", { newId: "fork", cwd: "/work" });
    session("other", [user("other")]);
    store.appendMessage(store.createSession({ id: "fork", cwd: "/work", model: "m", provider: "p" }), user("later, in the fork"));
    const recent = store.recentSessions({ limit: 10 });
    expect(recent.map((row) => [row.id, row.rootSessionId])).toEqual([
      ["fork", "root"],
      ["other", "other"],
    ]);
    expect(recent[0]).toMatchObject({ title: "Root title" });
    expect(store.recentSessions({ limit: 10, excludeSessionId: "fork" }).map((row) => row.id)).toEqual(["other"]);
  });
});
