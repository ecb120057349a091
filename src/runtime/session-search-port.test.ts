import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { writeHermesState } from "../../test/support/hermes-state-fixture.js";
import { hermesUserSessions } from "../../test/support/hermes-user-sessions.js";
import { toolContext } from "../../test/support/tool-context.js";
import { loadSqlite } from "../store/sqlite.js";
import { StateStore } from "../store/state-store.js";
import type { StoredMessage } from "../store/types.js";
import { parseToolArgs } from "../tools/registry.js";
import { sessionSearchTool } from "../tools/session-search/session-search.js";
import { createSessionSearchPort } from "./session-search-port.js";

let root: string;
let store: StateStore;
let clock: number;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-search-port-"));
  clock = 1_700_000_000_000;
  store = new StateStore(join(root, "state.db"), { now: () => (clock += 1000) });
});
afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

function write(id: string, messages: StoredMessage[], title?: string): void {
  const meta = store.createSession({ id, cwd: `/work/${id}`, model: "model-x", provider: "custom" });
  for (const message of messages) store.appendMessage(meta, message);
  if (title) store.setTitle(id, title);
}

const user = (content: string): StoredMessage => ({ role: "user", content });
const assistant = (content: string): StoredMessage => ({ role: "assistant", content });

function seed(): void {
  write(
    "old",
    [
      user("We chose the flamingo caching strategy for the gateway"),
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } }] },
      { role: "tool", tool_call_id: "c1", name: "terminal", content: "cache.ts" },
      assistant("Flamingo caching is set up in cache.ts."),
    ],
    "Gateway caching",
  );
  write("mid", [user("unrelated talk about tests"), assistant("ok")]);
  write("current", [user("what did we decide about flamingo caching?")]);
}

describe("createSessionSearchPort over a real state.db", () => {
  it("finds a word said sessions ago, leaving out the current session", async () => {
    seed();
    const port = createSessionSearchPort(store, "current");
    const hits = await port.search({ query: "flamingo", limit: 5 });
    expect(hits.map((hit) => hit.session.id)).toEqual(["old"]);
    const [hit] = hits;
    expect(hit!.session).toMatchObject({
      id: "old",
      title: "Gateway caching",
      preview: "We chose the flamingo caching strategy for the gateway",
      source: "acp",
      cwd: "/work/old",
      model: "model-x",
      messageCount: 4,
    });
    expect(hit!.snippet).toMatch(/>>>flamingo<<</i);
    expect(hit!.context.find((message) => message.isMatch)?.id).toBe(hit!.messageId);
    // another session's port sees the current one
    const fromMid = await createSessionSearchPort(store, "mid").search({ query: "flamingo", limit: 5 });
    expect(fromMid.map((found) => found.session.id).sort()).toEqual(["current", "old"]);
  });

  it("passes roles and sort through to the store", async () => {
    seed();
    const port = createSessionSearchPort(store, "current");
    expect(await port.search({ query: "cache.ts", limit: 3, roleFilter: ["tool"] })).toHaveLength(1);
    expect(await port.search({ query: "cache.ts", limit: 3, roleFilter: ["user"] })).toHaveLength(0);
    expect((await port.search({ query: "flamingo", limit: 3, sort: "recent" }))[0]!.session.id).toBe("old");
  });

  it("lists recent sessions without the current one, newest first", async () => {
    seed();
    const recent = await createSessionSearchPort(store, "current").recent(10);
    expect(recent.map((session) => session.id)).toEqual(["mid", "old"]);
    expect(recent[1]).toMatchObject({ title: "Gateway caching", model: "model-x", messageCount: 4, preview: "We chose the flamingo caching strategy for the gateway" });
    expect(await createSessionSearchPort(store, "current").recent(1)).toHaveLength(1);
  });

  it("scrolls and reads any stored session, with tool calls and results in the tools' shape", async () => {
    seed();
    const port = createSessionSearchPort(store, "current");
    const ids = store.loadMessageRows("old").map((row) => row.id);
    const around = await port.around("old", ids[1]!, 1);
    expect(around!.session).toMatchObject({ id: "old", preview: "We chose the flamingo caching strategy for the gateway" });
    expect(around!.messages.map((message) => message.id)).toEqual(ids.slice(0, 3));
    expect(around!.messages[1]).toMatchObject({ role: "assistant", content: null, toolCalls: [{ id: "c1", name: "terminal", arguments: '{"command":"ls"}' }] });
    expect(around!.messages[2]).toMatchObject({ role: "tool", content: "cache.ts", toolName: "terminal", toolCallId: "c1" });
    expect(await port.around("old", 999_999, 5)).toMatchObject({ messages: [] });
    expect(await port.around("missing", ids[0]!, 5)).toBeUndefined();

    const transcript = await port.read("old");
    expect(transcript).toMatchObject({ total: 4, skipped: 0 });
    expect(transcript!.messages).toHaveLength(4);
    expect(await port.read("missing")).toBeUndefined();
    expect(await port.read("current")).toMatchObject({ total: 1 });
  });

  it("reads a long session as its first 20 and last 10 messages", async () => {
    write("long", Array.from({ length: 50 }, (_, index) => user(`line ${index}`)));
    const transcript = await createSessionSearchPort(store, "current").read("long");
    expect(transcript).toMatchObject({ total: 50, skipped: 20 });
    expect(transcript!.messages).toHaveLength(30);
    expect(transcript!.gapAfterId).toBe(transcript!.messages[19]!.id);
  });

  it("serves the session_search tool end to end", async () => {
    seed();
    const parsed = parseToolArgs(sessionSearchTool, JSON.stringify({ query: "flamingo" }));
    if (!parsed.ok) throw new Error(parsed.error);
    const result = await sessionSearchTool.execute(parsed.args, toolContext({ sessionId: "current", ports: { sessionSearch: createSessionSearchPort(store, "current") } }));
    expect(result.isError).toBeFalsy();
    const body = JSON.parse(result.content) as { results: Array<{ session_id: string; detail: string; messages: Array<{ anchor?: boolean; content: string }> }> };
    expect(body.results.map((found) => found.session_id)).toEqual(["old"]);
    expect(body.results[0]!.detail).toBe("full");
    expect(body.results[0]!.messages.find((message) => message.anchor)?.content).toMatch(/flamingo/i);
  });
});

describe("createSessionSearchPort with Python Hermes' state.db beside it", () => {
  const TELEGRAM = "20241224_020000_bb22";
  const ROOT = "20241224_030000_cc33";

  /** state.db is Hermes' (so hermes-acp keeps its own sessions in state-acp.db); one own session mentions buttermilk too. */
  function hermesHome(): void {
    store.close();
    writeHermesState(join(root, "state.db"), hermesUserSessions());
    store = new StateStore(join(root, "state.db"), { now: () => (clock += 1000) });
    write("own-buttermilk", [user("buttermilk substitutes for the cake"), assistant("Yogurt thinned with milk works.")], "Cake");
    write("current", [user("what did we say about buttermilk?")]);
    expect(existsSync(join(root, "state-acp.db"))).toBe(true);
  }

  async function tool(args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const parsed = parseToolArgs(sessionSearchTool, JSON.stringify(args));
    if (!parsed.ok) throw new Error(parsed.error);
    const result = await sessionSearchTool.execute(parsed.args, toolContext({ sessionId: "current", ports: { sessionSearch: createSessionSearchPort(store, "current") } }));
    expect(result.isError).toBeFalsy();
    return JSON.parse(result.content) as Record<string, unknown>;
  }

  it("searches both, rank by rank, each hit labelled with its source", async () => {
    hermesHome();
    const hits = await createSessionSearchPort(store, "current").search({ query: "buttermilk", limit: 5 });
    expect(hits.map((hit) => [hit.session.id, hit.session.source])).toEqual([
      [TELEGRAM, "telegram"],
      ["own-buttermilk", "acp"],
    ]);
    expect(hits[0]!.session).toMatchObject({ title: "Pancake recipe", model: "hermes-model", messageCount: 3 });
    const body = await tool({ query: "buttermilk" });
    expect(body.results).toMatchObject([{ session_id: TELEGRAM, source: "telegram", detail: "full" }, { session_id: "own-buttermilk", source: "acp" }]);
  });

  it("groups a continuation with its root and names the root as parent_session_id", async () => {
    hermesHome();
    const body = (await tool({ query: "nebulae camera", limit: 5 })) as { results: Array<Record<string, unknown>> };
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({ session_id: "20241224_031000_cc34", parent_session_id: ROOT, title: "Telescope choice", source: "discord" });
  });

  it("scrolls and reads Hermes' sessions by their ids, and hermes-acp's own as before", async () => {
    hermesHome();
    const port = createSessionSearchPort(store, "current");
    const read = await port.read(TELEGRAM);
    expect(read).toMatchObject({ total: 2, session: { id: TELEGRAM, source: "telegram", preview: "what goes into buttermilk pancakes?" } });
    const around = await port.around(TELEGRAM, read!.messages[1]!.id, 1);
    expect(around!.messages.map((message) => message.content)).toEqual(["what goes into buttermilk pancakes?", "Buttermilk, flour, eggs, baking soda and a pinch of salt."]);
    // a message id of the other database does not belong to the session
    const own = store.loadMessageRows("own-buttermilk");
    expect(await port.around(TELEGRAM, own[0]!.id, 1)).toMatchObject({ messages: [] });
    expect((await port.read("own-buttermilk"))!.session.source).toBe("acp");
    expect(await port.read("20241224_050000_ee55")).toBeUndefined(); // the hidden subagent run
    const scrolled = await tool({ session_id: TELEGRAM, around_message_id: read!.messages[0]!.id, window: 1 });
    expect(scrolled).toMatchObject({ mode: "scroll", session_meta: { source: "telegram", title: "Pancake recipe" } });
  });

  it("browses both by last activity, one row per lineage, without hidden sources", async () => {
    hermesHome();
    const recent = await createSessionSearchPort(store, "current").recent(10);
    expect(recent.map((session) => session.id)).toEqual(["20241224_040000_dd44", "20241224_031000_cc34", TELEGRAM, "20241224_010000_aa11", "own-buttermilk"]);
    expect(recent[1]).toMatchObject({ lineageRootId: ROOT, title: "Telescope choice" });
    const body = (await tool({})) as { results: Array<Record<string, unknown>> };
    expect(body.results[1]).toMatchObject({ parent_session_id: ROOT, source: "discord" });
  });

  it("leaves out Hermes' sessions whose id is also hermes-acp's, or the current session's", async () => {
    store.close();
    const forged = (id: string, text: string) => ({ id, source: "cli", startedAt: 1_735_100_000, messages: [{ role: "user" as const, content: text }, { role: "assistant" as const, content: "ok" }] });
    writeHermesState(join(root, "state.db"), [...hermesUserSessions(), forged("own-buttermilk", "forged buttermilk copy"), forged("current", "forged buttermilk current")]);
    store = new StateStore(join(root, "state.db"), { now: () => (clock += 1000) });
    write("own-buttermilk", [user("buttermilk substitutes for the cake"), assistant("Yogurt thinned with milk works.")], "Cake");
    const port = createSessionSearchPort(store, "current");
    const hits = await port.search({ query: "buttermilk", limit: 10 });
    expect(hits.map((hit) => [hit.session.id, hit.session.source])).toEqual([
      [TELEGRAM, "telegram"],
      ["own-buttermilk", "acp"],
    ]);
    const recent = (await port.recent(20)).map((session) => session.id);
    expect(recent.filter((id) => id === "own-buttermilk")).toHaveLength(1);
    expect(recent).not.toContain("current");
    expect((await port.read("own-buttermilk"))!.session.source).toBe("acp");
  });

  it("still answers with hermes-acp's own sessions when Hermes' file cannot be read, saying so once", async () => {
    store.close();
    const db = new (loadSqlite())(join(root, "state.db"));
    db.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL); CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, content TEXT)");
    db.close();
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      store = new StateStore(join(root, "state.db"), { now: () => (clock += 1000) });
      seed();
      const port = createSessionSearchPort(store, "current");
      expect((await port.search({ query: "flamingo", limit: 5 })).map((hit) => hit.session.id)).toEqual(["old"]);
      expect((await port.recent(10)).map((session) => session.id)).toEqual(["mid", "old"]);
      expect(lines.filter((line) => line.includes("is not available")).length).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
