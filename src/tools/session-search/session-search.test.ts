import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { SessionSearchHit, SessionSearchMessage, SessionSearchPort, SessionSearchQuery, SessionSearchSession, SessionSearchTranscript } from "../ports.js";
import { describeCall, parseToolArgs, ToolRegistry } from "../registry.js";
import { hermesAcpTools } from "../toolsets.js";
import type { ToolResult } from "../types.js";
import { sessionSearchTool, type SessionSearchDetails } from "./session-search.js";

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);

const session = (id: string, over: Partial<SessionSearchSession> = {}): SessionSearchSession => ({
  id,
  title: `Title ${id}`,
  preview: `first words of ${id}`,
  source: "acp",
  cwd: "/work",
  model: "m1",
  startedAt: T0,
  lastActiveAt: T0 + 60_000,
  messageCount: 4,
  ...over,
});

const msg = (id: number, role: SessionSearchMessage["role"], content: string | null, over: Partial<SessionSearchMessage> = {}): SessionSearchMessage => ({
  id,
  role,
  content,
  timestamp: T0 + id * 1000,
  ...over,
});

const hit = (id: string, messageId: number): SessionSearchHit => ({
  session: session(id),
  messageId,
  role: "user",
  timestamp: T0 + messageId * 1000,
  snippet: `about >>>flamingo<<< in ${id}`,
  context: [
    { id: messageId - 1, role: "assistant", text: "before", isMatch: false },
    { id: messageId, role: "user", text: `flamingo in ${id}`, isMatch: true },
    { id: messageId + 1, role: "tool", text: "after", toolName: "terminal", isMatch: false },
  ],
});

/** A port answering from fixed data and recording every call. */
function fakePort(data: { hits?: SessionSearchHit[]; sessions?: Record<string, SessionSearchMessage[]>; recent?: SessionSearchSession[]; transcript?: SessionSearchTranscript } = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const port: SessionSearchPort = {
    async search(query: SessionSearchQuery) {
      calls.push(["search", query]);
      return data.hits ?? [];
    },
    async around(sessionId, messageId, window) {
      calls.push(["around", sessionId, messageId, window]);
      const messages = data.sessions?.[sessionId];
      if (!messages) return undefined;
      const at = messages.findIndex((message) => message.id === messageId);
      if (at < 0) return { session: session(sessionId), messages: [] };
      return { session: session(sessionId), messages: messages.slice(Math.max(0, at - window), at + window + 1) };
    },
    async read(sessionId) {
      calls.push(["read", sessionId]);
      return data.transcript?.session.id === sessionId ? data.transcript : undefined;
    },
    async recent(limit) {
      calls.push(["recent", limit]);
      return (data.recent ?? []).slice(0, limit);
    },
  };
  return { port, calls };
}

async function call(args: Record<string, unknown>, port: SessionSearchPort | undefined): Promise<ToolResult> {
  const parsed = parseToolArgs(sessionSearchTool, JSON.stringify(args));
  if (!parsed.ok) throw new Error(parsed.error);
  return sessionSearchTool.execute(parsed.args, toolContext({ ports: port ? { sessionSearch: port } : {} }));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read deep into the result JSON
const json = (result: ToolResult): Record<string, any> => JSON.parse(result.content);

const conversation = (count: number): SessionSearchMessage[] =>
  Array.from({ length: count }, (_, index) => msg(index + 1, index % 2 === 0 ? "user" : "assistant", `message ${index + 1}`));

describe("session_search: registration and description", () => {
  it("is in the hermes-acp toolset as a read-only `other` tool with a schema for every parameter", () => {
    const tool = hermesAcpTools().find((candidate) => candidate.name === "session_search");
    expect(tool).toBe(sessionSearchTool);
    expect(tool).toMatchObject({ kind: "other", mutating: false });
    const schema = new ToolRegistry([sessionSearchTool]).schemas()[0]!;
    expect(Object.keys((schema.parameters as { properties: object }).properties)).toEqual([
      "query",
      "limit",
      "role_filter",
      "sort",
      "session_id",
      "around_message_id",
      "window",
    ]);
  });

  it("titles calls `session search: <q>`, `recent sessions` or `session <id>`", () => {
    const title = (args: unknown): string => describeCall(sessionSearchTool, "session_search", args, { cwd: "/w" }).title;
    expect(title({ query: " flamingo caching " })).toBe("session search: flamingo caching");
    expect(title({})).toBe("recent sessions");
    expect(title({ query: "   " })).toBe("recent sessions");
    expect(title({ session_id: "s1" })).toBe("session s1");
    expect(title({ session_id: "s1", around_message_id: 7, query: "ignored" })).toBe("session s1");
  });
});

describe("session_search: failures the model sees", () => {
  it("says session search is unavailable when the runtime gave no port", async () => {
    const result = await call({ query: "x" }, undefined);
    expect(result.isError).toBe(true);
    expect(json(result)).toEqual({ success: false, error: expect.stringContaining("Session search is unavailable") });
  });

  it("turns a failing database into an error result, and rethrows cancellation", async () => {
    const { port } = fakePort();
    port.recent = async () => {
      throw new Error("state database /h/state.db: the disk is full");
    };
    const result = await call({}, port);
    expect(result).toMatchObject({ isError: true });
    expect(json(result).error).toBe("Session search failed: state database /h/state.db: the disk is full");

    const controller = new AbortController();
    controller.abort();
    const parsed = parseToolArgs(sessionSearchTool, "{}");
    await expect(sessionSearchTool.execute(parsed.ok ? parsed.args : {}, toolContext({ signal: controller.signal, ports: { sessionSearch: port } }))).rejects.toThrow(
      "aborted",
    );
  });

  it("rejects an unknown role and an anchor without a session, naming the problem", async () => {
    const { port, calls } = fakePort();
    expect(json(await call({ query: "x", role_filter: "user,robot" }, port)).error).toContain("robot");
    expect(json(await call({ around_message_id: 3 }, port)).error).toContain("around_message_id needs session_id");
    expect(json(await call({ session_id: "s", around_message_id: 2.5 }, port)).error).toContain("around_message_id must be a message id");
    expect(calls).toEqual([]);
  });
});

describe("session_search: discovery", () => {
  it("searches with Hermes' defaults and hydrates the top hit with the full ±5 window", async () => {
    const { port, calls } = fakePort({ hits: [hit("a", 20), hit("b", 5)], sessions: { a: conversation(40) } });
    const result = await call({ query: "  flamingo  " }, port);
    expect(result.isError).toBeFalsy();
    expect(calls).toEqual([
      ["search", { query: "flamingo", limit: 3 }],
      ["around", "a", 20, 5],
    ]);
    const body = json(result);
    expect(body).toMatchObject({ success: true, mode: "discover", query: "flamingo", count: 2 });
    const [top, second] = body.results;
    expect(top).toMatchObject({
      session_id: "a",
      title: "Title a",
      when: new Date(T0 + 60_000).toISOString(),
      started_at: new Date(T0).toISOString(),
      source: "acp",
      message_count: 4,
      matched_role: "user",
      match_message_id: 20,
      snippet: "about >>>flamingo<<< in a",
      detail: "full",
    });
    expect(top.messages.map((message: { id: number }) => message.id)).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(top.messages[5]).toEqual({ id: 20, role: "assistant", content: "message 20", timestamp: new Date(T0 + 20_000).toISOString(), anchor: true });
    expect(second).toMatchObject({ session_id: "b", detail: "compact" });
    expect(second.messages).toEqual([
      { id: 4, role: "assistant", content: "before" },
      { id: 5, role: "user", content: "flamingo in b", anchor: true },
      { id: 6, role: "tool", content: "after", tool_name: "terminal" },
    ]);
    expect(result.details).toEqual({
      mode: "discover",
      query: "flamingo",
      results: [
        { sessionId: "a", title: "Title a", when: new Date(T0 + 60_000).toISOString(), source: "acp", messageCount: 4, summary: "about >>>flamingo<<< in a" },
        { sessionId: "b", title: "Title b", when: new Date(T0 + 60_000).toISOString(), source: "acp", messageCount: 4, summary: "about >>>flamingo<<< in b" },
      ],
    } satisfies SessionSearchDetails);
  });

  it("clamps the limit to 1–10 and passes roles (list or comma string) and sort", async () => {
    const { port, calls } = fakePort();
    await call({ query: "x", limit: 50, role_filter: "user, Tool", sort: "recent" }, port);
    await call({ query: "x", limit: 0, role_filter: ["assistant"] }, port);
    await call({ query: "x", limit: "4" }, port);
    expect(calls).toEqual([
      ["search", { query: "x", limit: 10, roleFilter: ["user", "tool"], sort: "recent" }],
      ["search", { query: "x", limit: 1, roleFilter: ["assistant"] }],
      ["search", { query: "x", limit: 4 }],
    ]);
  });

  it("cuts very long queries to 2,048 characters", async () => {
    const { port, calls } = fakePort();
    await call({ query: "q".repeat(5000) }, port);
    expect((calls[0]![1] as SessionSearchQuery).query).toHaveLength(2048);
  });

  it("says so when nothing matches", async () => {
    const { port } = fakePort();
    const result = await call({ query: "nothing" }, port);
    expect(json(result)).toMatchObject({ success: true, mode: "discover", results: [], count: 0, message: "No matching sessions found." });
    expect(result.details).toEqual({ mode: "discover", query: "nothing", results: [] });
  });

  it("keeps the store's short context when the top hit's session vanished before hydration", async () => {
    const { port } = fakePort({ hits: [hit("gone", 3)] });
    const top = json(await call({ query: "flamingo" }, port)).results[0];
    expect(top.detail).toBe("compact");
    expect(top.messages).toHaveLength(3);
  });
});

describe("session_search: scroll, read, browse", () => {
  it("scrolls around a message with the window clamped to 1–20 (default 5)", async () => {
    const messages = conversation(60);
    messages[29] = msg(30, "assistant", null, { toolCalls: [{ id: "c1", name: "terminal", arguments: '{"command":"ls"}' }] });
    messages[30] = msg(31, "tool", "a.ts", { toolName: "terminal", toolCallId: "c1" });
    const { port, calls } = fakePort({ sessions: { s: messages } });
    const result = await call({ session_id: "s", around_message_id: 30 }, port);
    const body = json(result);
    expect(body).toMatchObject({ success: true, mode: "scroll", session_id: "s", around_message_id: 30, window: 5 });
    expect(body.session_meta).toMatchObject({ title: "Title s", source: "acp", model: "m1", cwd: "/work", message_count: 4 });
    expect(body.messages.map((message: { id: number }) => message.id)).toEqual([25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]);
    expect(body.messages[5]).toMatchObject({ id: 30, content: null, tool_calls: [{ id: "c1", name: "terminal", arguments: '{"command":"ls"}' }], anchor: true });
    expect(body.messages[6]).toMatchObject({ id: 31, role: "tool", tool_name: "terminal", tool_call_id: "c1" });
    expect(result.details).toMatchObject({ mode: "scroll", results: [{ sessionId: "s", summary: '[terminal({"command":"ls"})]' }] });

    await call({ session_id: "s", around_message_id: 30, window: 99 }, port);
    await call({ session_id: "s", around_message_id: 30, window: 0 }, port);
    expect(calls.map((entry) => entry[3])).toEqual([5, 20, 1]);
  });

  it("names an unknown session or a message the session does not hold", async () => {
    const { port } = fakePort({ sessions: { s: conversation(3) } });
    const unknown = await call({ session_id: "nope", around_message_id: 1 }, port);
    expect(unknown.isError).toBe(true);
    expect(json(unknown).error).toBe("session_id not found: nope");
    expect(json(await call({ session_id: "s", around_message_id: 99 }, port)).error).toBe("around_message_id 99 is not in session_id s");
    expect(json(await call({ session_id: "nope" }, port))).toEqual({ success: false, error: "session_id not found: nope" });
  });

  it("reads a whole session, and a long one as head + tail with the skipped count", async () => {
    const small = fakePort({ transcript: { session: session("s"), messages: conversation(3), total: 3, skipped: 0 } });
    const whole = json(await call({ session_id: "s" }, small.port));
    expect(whole).toMatchObject({ success: true, mode: "read", session_id: "s", message_count: 3, truncated: false });
    expect(whole.messages).toHaveLength(3);
    expect(whole.message).toBeUndefined();

    const all = conversation(100);
    const long = fakePort({ transcript: { session: session("L"), messages: [...all.slice(0, 20), ...all.slice(90)], total: 100, skipped: 70, gapAfterId: 20 } });
    const result = await call({ session_id: "L" }, long.port);
    const body = json(result);
    expect(body).toMatchObject({ mode: "read", message_count: 100, truncated: true, skipped: 70 });
    expect(body.messages).toHaveLength(30);
    expect(body.message).toBe("Session has 100 messages; showing the first 20 and last 10 (70 skipped). Pass around_message_id (e.g. 20) to scroll the middle.");
    expect(result.details).toMatchObject({ mode: "read", results: [{ sessionId: "L", summary: "first words of L" }] });
  });

  it("cuts very long message content and says how long it was", async () => {
    const { port } = fakePort({ transcript: { session: session("s"), messages: [msg(1, "tool", "x".repeat(10_000), { toolName: "terminal" })], total: 1, skipped: 0 } });
    const [message] = json(await call({ session_id: "s" }, port)).messages;
    expect(message.content).toHaveLength(4001);
    expect(message).toMatchObject({ content_truncated: true, original_content_chars: 10_000 });
  });

  it("browses recent sessions with no arguments (10 by default, `limit` clamped)", async () => {
    const recent = [session("r1", { title: null, preview: "how do I  fix\nthe build" }), session("r2")];
    const { port, calls } = fakePort({ recent });
    const result = await call({}, port);
    const body = json(result);
    expect(body).toMatchObject({ success: true, mode: "browse", count: 2 });
    expect(body.results[0]).toEqual({
      session_id: "r1",
      title: null,
      preview: "how do I  fix\nthe build",
      source: "acp",
      cwd: "/work",
      started_at: new Date(T0).toISOString(),
      last_active: new Date(T0 + 60_000).toISOString(),
      message_count: 4,
    });
    expect(result.details).toMatchObject({ mode: "browse", results: [{ sessionId: "r1", title: null, summary: "how do I fix the build" }, { sessionId: "r2" }] });
    expect((result.details as SessionSearchDetails).query).toBeUndefined();
    await call({ limit: 25 }, port);
    expect(calls).toEqual([
      ["recent", 10],
      ["recent", 10],
    ]);
    await call({ limit: 2 }, port);
    expect(calls[2]).toEqual(["recent", 2]);
  });
});
