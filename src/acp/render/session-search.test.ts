import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { toolEndEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import type { SessionSearchPort, SessionSearchSession, ToolPorts } from "../../tools/ports.js";
import { prepareToolCall, type PreparedToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import { sessionSearchTool } from "../../tools/session-search/session-search.js";
import { typeDetails } from "../../tools/typed-call.js";
import { replayUpdates } from "../replay.js";
import { toolEndUpdate, toolStartUpdate } from "../tool-render.js";
import { truncate } from "./text.js";
import type { ToolEnd, ToolStart } from "./types.js";

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);
const TOOLS = new ToolRegistry([sessionSearchTool]);
const callOf = (args: unknown): ToolCall => ({ id: "c1", type: "function", function: { name: "session_search", arguments: JSON.stringify(args) } });
const prepared = (args: unknown): PreparedToolCall => prepareToolCall(callOf(args), TOOLS, { cwd: "/w" });
const start = (args: unknown): ToolStart => toolStartEvent(prepared(args));
const end = (result: { content?: string; isError?: boolean; details?: unknown }, args: unknown = {}): ToolEnd =>
  toolEndEvent(prepared(args), { content: result.content ?? "", isError: result.isError ?? false, details: result.details });
const text = (update: unknown): string =>
  ((update as { content?: Array<{ content?: { text?: string } }> }).content ?? []).map((block) => block.content?.text ?? "").join("\n");

const session = (id: string, over: Partial<SessionSearchSession> = {}): SessionSearchSession => ({
  id,
  title: `Title ${id}`,
  preview: `preview of ${id}`,
  source: "acp",
  cwd: "/w",
  model: "m",
  startedAt: T0,
  lastActiveAt: T0,
  messageCount: 12,
  ...over,
});

const port: SessionSearchPort = {
  search: async () => [
    { session: session("s1"), messageId: 3, role: "user", timestamp: T0, snippet: "we chose >>>flamingo<<< caching", context: [] },
    { session: session("s2", { title: null, messageCount: 2 }), messageId: 9, role: "assistant", timestamp: T0, snippet: ">>>Flamingo<<< again", context: [] },
  ],
  around: async (sessionId) => ({ session: session(sessionId), messages: [{ id: 3, role: "user", content: "we chose flamingo caching", timestamp: T0 }] }),
  read: async (sessionId) => ({ session: session(sessionId), messages: [{ id: 1, role: "user", content: "hello", timestamp: T0 }], total: 1, skipped: 0 }),
  recent: async () => [session("r1", { preview: "fix the   build" }), session("r2", { title: "A *starred* title" })],
};

/** Runs the real tool through the fake port and returns its tool_end event. */
async function ran(args: Record<string, unknown>, ports: ToolPorts = { sessionSearch: port }): Promise<ToolEnd> {
  const call = prepared(args);
  const result = await sessionSearchTool.execute(call.args, toolContext({ ports }));
  return toolEndEvent(call, { content: result.content, details: result.details, isError: result.isError ?? false });
}

/** The same call replayed from a stored transcript, with its stored outcome (or none). */
function replayed(live: ToolEnd, args: Record<string, unknown>, stored: { details?: unknown } | undefined) {
  const updates = replayUpdates(
    [
      { message: { role: "assistant", content: null, tool_calls: [callOf(args)] } },
      { message: { role: "tool", tool_call_id: "c1", content: live.content }, ...(stored ? { toolOutcome: { isError: live.isError, ...stored } } : {}) },
    ],
    TOOLS,
    "/w",
  );
  return updates.at(-1);
}

describe("session_search start", () => {
  it("says what is being searched or loaded", () => {
    expect(text(toolStartUpdate(start({ query: "flamingo caching" })))).toBe("Searching past sessions for: flamingo caching");
    expect(text(toolStartUpdate(start({})))).toBe("Loading recent sessions");
    expect(text(toolStartUpdate(start({ session_id: "s1" })))).toBe("Reading session s1");
    expect(text(toolStartUpdate(start({ session_id: "s1", around_message_id: 7 })))).toBe("Loading messages around #7 in session s1");
    expect(toolStartUpdate(start("not an object"))).toMatchObject({ content: [{ type: "content", content: { type: "text", text: "Loading recent sessions" } }] });
  });
});

describe("session_search completion", () => {
  it("lists search results with title, id, time, source, count and the snippet in bold", async () => {
    const update = toolEndUpdate(await ran({ query: "flamingo" }));
    expect(update).toMatchObject({ status: "completed" });
    expect(text(update)).toBe(
      [
        "Session search results for `flamingo`",
        "- **Title s1** (`s1`) — 2025-01-02 03:04 UTC, acp, 12 msgs",
        "  we chose **flamingo** caching",
        "- **(untitled)** (`s2`) — 2025-01-02 03:04 UTC, acp, 2 msgs",
        "  **Flamingo** again",
      ].join("\n"),
    );
  });

  it("lists recent sessions with previews, escaping markdown in titles", async () => {
    const shown = text(toolEndUpdate(await ran({})));
    expect(shown).toBe(
      [
        "Recent sessions",
        "- **Title r1** (`r1`) — 2025-01-02 03:04 UTC, acp, 12 msgs",
        "  fix the build",
        "- **A \\*starred\\* title** (`r2`) — 2025-01-02 03:04 UTC, acp, 12 msgs",
        "  preview of r2",
      ].join("\n"),
    );
  });

  it("shows read and scroll results as the session they came from", async () => {
    expect(text(toolEndUpdate(await ran({ session_id: "s1" })))).toBe("Session transcript\n- **Title s1** (`s1`) — 2025-01-02 03:04 UTC, acp, 12 msgs\n  preview of s1");
    expect(text(toolEndUpdate(await ran({ session_id: "s1", around_message_id: 3 })))).toBe(
      "Session messages around #3\n- **Title s1** (`s1`) — 2025-01-02 03:04 UTC, acp, 12 msgs\n  we chose flamingo caching",
    );
  });

  it("renders a replayed call from its stored details exactly as it was live", async () => {
    for (const args of [{ query: "flamingo" }, {}, { session_id: "s1", around_message_id: 3 }]) {
      const live = await ran(args);
      expect(replayed(live, args, typeDetails("session_search", live.details))).toEqual(toolEndUpdate(live));
    }
  });

  it("replays a call whose stored details do not decode (or are missing) as its plain text", async () => {
    const live = await ran({ query: "flamingo" });
    for (const stored of [{ details: { mode: "discover", results: "not a list" } }, undefined]) {
      const update = replayed(live, { query: "flamingo" }, stored);
      expect(update).toMatchObject({ status: "completed" });
      expect(text(update)).toBe(truncate(live.content));
    }
  });

  it("says when nothing was found, and quotes a query holding backticks", () => {
    const update = toolEndUpdate(end({ content: "{}", details: { mode: "discover", query: "a `b` c", results: [] } }, { query: "a `b` c" }));
    expect(text(update)).toBe("Session search results for `` a `b` c ``\n\nNo matching sessions found.");
  });

  it("fails with the error text, never raw JSON", async () => {
    const update = toolEndUpdate(end({ content: '{"success":false,"error":"session_id not found: x"}', isError: true }));
    expect(update).toMatchObject({ status: "failed" });
    expect(text(update)).toBe("Session search failed: session_id not found: x");
    const unavailable = toolEndUpdate(await ran({}, {}));
    expect(unavailable).toMatchObject({ status: "failed" });
    expect(text(unavailable)).toContain("Session search failed: Session search is unavailable");
  });

  it("caps the listing at 7,000 characters and each summary at 500", () => {
    const results = Array.from({ length: 40 }, (_, index) => ({ sessionId: `s${index}`, title: "t", when: new Date(T0).toISOString(), summary: "x".repeat(900) }));
    const shown = text(toolEndUpdate(end({ content: "{}", details: { mode: "browse", results } })));
    expect(shown.length).toBeLessThanOrEqual(7000);
    expect(shown).toContain("chars total, truncated");
    expect(shown.split("\n")[2]).toHaveLength(2 + 500);
  });
});
