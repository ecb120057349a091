import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { SessionSearchPort, SessionSearchSession } from "../../tools/ports.js";
import { parseToolArgs } from "../../tools/registry.js";
import { sessionSearchTool } from "../../tools/session-search/session-search.js";
import { toolEndUpdate, toolStartUpdate } from "../tool-render.js";
import { sessionSearchRenderer } from "./session-search.js";
import type { ToolEnd, ToolStart } from "./types.js";

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);
const start = (args: unknown): ToolStart => ({ type: "tool_start", callId: "c1", name: "session_search", args, title: "t", kind: "other", locations: [] });
const end = (over: Partial<ToolEnd>): ToolEnd => ({ type: "tool_end", callId: "c1", name: "session_search", args: {}, content: "", isError: false, ...over });
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
async function ran(args: Record<string, unknown>): Promise<ToolEnd> {
  const parsed = parseToolArgs(sessionSearchTool, JSON.stringify(args));
  if (!parsed.ok) throw new Error(parsed.error);
  const result = await sessionSearchTool.execute(parsed.args, toolContext({ ports: { sessionSearch: port } }));
  return end({ args, content: result.content, details: result.details, isError: result.isError ?? false });
}

describe("session_search start", () => {
  it("says what is being searched or loaded", () => {
    expect(text(toolStartUpdate(start({ query: "flamingo caching" })))).toBe("Searching past sessions for: flamingo caching");
    expect(text(toolStartUpdate(start({})))).toBe("Loading recent sessions");
    expect(text(toolStartUpdate(start({ session_id: "s1" })))).toBe("Reading session s1");
    expect(text(toolStartUpdate(start({ session_id: "s1", around_message_id: 7 })))).toBe("Loading messages around #7 in session s1");
    expect(sessionSearchRenderer.start!(start("not an object"))).toEqual([{ type: "content", content: { type: "text", text: "Loading recent sessions" } }]);
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

  it("renders the same list from the result JSON alone, as a replayed call has no details", async () => {
    const live = await ran({ query: "flamingo" });
    expect(text(toolEndUpdate({ ...live, details: undefined }))).toBe(text(toolEndUpdate(live)));
    const browse = await ran({});
    expect(text(toolEndUpdate({ ...browse, details: undefined }))).toBe(text(toolEndUpdate(browse)));
    const scroll = await ran({ session_id: "s1", around_message_id: 3 });
    expect(text(toolEndUpdate({ ...scroll, details: undefined }))).toBe(text(toolEndUpdate(scroll)));
  });

  it("says when nothing was found, and quotes a query holding backticks", () => {
    const update = toolEndUpdate(end({ content: "{}", details: { mode: "discover", query: "a `b` c", results: [] } }));
    expect(text(update)).toBe("Session search results for `` a `b` c ``\n\nNo matching sessions found.");
  });

  it("fails with the error text, never raw JSON", async () => {
    const update = toolEndUpdate(end({ content: '{"success":false,"error":"session_id not found: x"}', isError: true }));
    expect(update).toMatchObject({ status: "failed" });
    expect(text(update)).toBe("Session search failed: session_id not found: x");
    const unavailable = await (async () => {
      const parsed = parseToolArgs(sessionSearchTool, "{}");
      if (!parsed.ok) throw new Error(parsed.error);
      const result = await sessionSearchTool.execute(parsed.args, toolContext());
      return toolEndUpdate(end({ content: result.content, isError: result.isError ?? false }));
    })();
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
