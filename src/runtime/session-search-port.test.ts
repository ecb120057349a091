import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolContext } from "../../test/support/tool-context.js";
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
