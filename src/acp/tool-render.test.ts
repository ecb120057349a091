import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../agent/events.js";
import { toSessionUpdates } from "./event-bridge.js";
import { structuredFailure } from "./render/generic.js";
import { abandonedToolUpdate, fenced, toolEndUpdate, toolProgressUpdate, toolStartUpdate } from "./tool-render.js";

type Start = Extract<AgentEvent, { type: "tool_start" }>;
type End = Extract<AgentEvent, { type: "tool_end" }>;

const start = (over: Partial<Start>): Start => ({ type: "tool_start", callId: "c1", name: "x", args: {}, title: "x", kind: "other", locations: [], ...over });
const end = (over: Partial<End>): End => ({ type: "tool_end", callId: "c1", name: "x", args: {}, content: "", isError: false, ...over });
const texts = (update: unknown): string =>
  ((update as { content?: Array<{ type: string; content?: { text?: string } }> }).content ?? []).map((block) => block.content?.text ?? "").join("\n");

describe("tool start", () => {
  it("starts a read with title, kind, locations and raw input but no content", () => {
    expect(toolStartUpdate(start({ name: "read_file", args: { path: "a.ts", offset: 3 }, title: "read: a.ts", kind: "read", locations: [{ path: "/w/a.ts", line: 3 }] }))).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "c1",
      title: "read: a.ts",
      kind: "read",
      status: "in_progress",
      locations: [{ path: "/w/a.ts", line: 3 }],
      rawInput: { path: "a.ts", offset: 3 },
      content: [],
    });
  });

  it("shows `$ <command>` for terminal and the search for search_files", () => {
    expect(texts(toolStartUpdate(start({ name: "terminal", args: { command: "npm test" }, title: "terminal: npm test", kind: "execute" })))).toBe("$ npm test");
    expect(texts(toolStartUpdate(start({ name: "search_files", args: { pattern: "TODO", path: "src" }, kind: "search" })))).toBe("Searching for 'TODO' (content) in src");
  });

  it("lists todo items at start", () => {
    const update = toolStartUpdate(start({ name: "todo", args: { todos: [{ id: "1", content: "write tests", status: "pending" }] } }));
    expect(texts(update)).toBe("Updating todo list\n\n- pending: write tests");
  });

  it("shows unknown tools' arguments as JSON and falls back to the tool name for a missing title", () => {
    const update = toolStartUpdate(start({ name: "mystery", args: { q: 1 }, title: "" }));
    expect(update).toMatchObject({ title: "mystery" });
    expect(texts(update)).toBe('{\n  "q": 1\n}');
  });
});

describe("tool completion", () => {
  it("completes a read with a header and a fence longer than any backtick run in the file", () => {
    const update = toolEndUpdate(end({ name: "read_file", content: "{}", details: { path: "/w/a.md", offset: 1, limit: 500, totalLines: 2, content: "1|```js\n2|x" } }));
    expect(update).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
    expect(texts(update)).toBe("Read /w/a.md — 2 total lines\n\n````\n1|```js\n2|x\n````");
  });

  it("shows a failed read's error text", () => {
    const update = toolEndUpdate(end({ name: "read_file", content: '{"error":"File not found: x"}', isError: true }));
    expect(update).toMatchObject({ status: "failed" });
    expect(texts(update)).toBe("Read failed: File not found: x");
  });

  it("fails a terminal call on a non-zero exit code, not on the word error in its output", () => {
    const ok = toolEndUpdate(end({ name: "terminal", details: { command: "echo", exitCode: 0, output: "error: none of this matters" } }));
    expect(ok).toMatchObject({ status: "completed" });
    expect(texts(ok)).toContain("Exit code: 0");
    const bad = toolEndUpdate(end({ name: "terminal", details: { command: "false", exitCode: 1, output: "" } }));
    expect(bad).toMatchObject({ status: "failed" });
  });

  it("embeds the editor's terminal instead of copying its output, while running and at the end", () => {
    const progress = toolProgressUpdate({ type: "tool_progress", callId: "c1", name: "terminal", args: {}, details: { command: "make", cwd: "/w", running: true, terminalId: "t-9" } });
    expect(progress).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress", content: [{ type: "terminal", terminalId: "t-9" }] });
    const done = toolEndUpdate(end({ name: "terminal", details: { command: "make", cwd: "/w", exitCode: 2, output: "boom", terminalId: "t-9" } }));
    expect(done).toMatchObject({ status: "failed", content: [{ type: "terminal", terminalId: "t-9" }, { type: "content", content: { type: "text", text: "Exit code: 2" } }] });
    const streaming = toolProgressUpdate({ type: "tool_progress", callId: "c1", name: "terminal", args: {}, details: { command: "make", cwd: "/w", running: true, output: "50%" } });
    expect(streaming).toMatchObject({ status: "in_progress" });
    expect(texts(streaming)).toBe("```\n50%\n```");
  });

  it("renders edits as diff blocks", () => {
    const update = toolEndUpdate(
      end({ name: "patch", details: { mode: "replace", files: [{ path: "/w/a.ts", oldText: "a\n", newText: "b\n" }], diff: "" } }),
    );
    expect(update).toMatchObject({ status: "completed", content: [{ type: "diff", path: "/w/a.ts", oldText: "a\n", newText: "b\n" }] });
    const created = toolEndUpdate(end({ name: "write_file", details: { path: "/w/new.ts", oldText: null, newText: "x" } }));
    expect(created).toMatchObject({ content: [{ type: "diff", path: "/w/new.ts", oldText: null, newText: "x" }] });
  });

  it("reports a failed edit with the tool, path and error", () => {
    const update = toolEndUpdate(end({ name: "write_file", args: { path: "a.ts" }, content: '{"error":"Edit approval denied"}', isError: true }));
    expect(texts(update)).toBe("write_file failed for a.ts: Edit approval denied");
  });

  it("summarises search results", () => {
    const update = toolEndUpdate(
      end({ name: "search_files", details: { mode: "content", total: 2, truncated: false, matches: [{ path: "a.ts", line: 3, text: "  const   x = 1" }, { path: "b.ts", line: 9, text: "y" }] } }),
    );
    expect(texts(update)).toBe("Search results\nFound 2 match(es); showing 2.\n- a.ts:3  const x = 1\n- b.ts:9  y");
  });

  it("truncates long generic results for display and fails them only on structured signals", () => {
    const update = toolEndUpdate(end({ name: "other", content: "x".repeat(20_000) }));
    const text = texts(update);
    expect(text.length).toBeLessThanOrEqual(7000);
    expect(text).toContain("20000 chars total, truncated");
    expect(toolEndUpdate(end({ content: "there was an error" }))).toMatchObject({ status: "completed" });
    expect(toolEndUpdate(end({ content: '{"success": false}' }))).toMatchObject({ status: "failed" });
  });

  it("closes an abandoned call as failed", () => {
    expect(abandonedToolUpdate("c9")).toMatchObject({ toolCallId: "c9", status: "failed" });
    expect(texts(abandonedToolUpdate("c9"))).toBe("This tool call ended without a result (blocked, denied, or interrupted).");
  });

  it("fences plain text with three backticks", () => {
    expect(fenced("a")).toBe("```\na\n```");
  });
});

describe("structured failure", () => {
  it.each([
    [{ success: false }, true],
    [{ ok: false }, true],
    [{ exit_code: 2 }, true],
    [{ returncode: 1 }, true],
    [{ error: "boom" }, true],
    [{ error: "boom", content: "partial" }, false],
    [{ exit_code: 0 }, false],
    ["error everywhere", false],
    [undefined, false],
  ])("%j → %s", (result, failed) => {
    expect(structuredFailure(result)).toBe(failed);
  });
});

describe("plan", () => {
  it("sends the plan after a todo call completes", () => {
    const updates = toSessionUpdates(end({ name: "todo", details: { todos: [{ id: "1", content: "a", status: "pending" }], summary: {} } }));
    expect(updates.map((update) => update.sessionUpdate)).toEqual(["tool_call_update", "plan"]);
  });
});

describe("event bridge", () => {
  it("maps deltas to chunks carrying the message id and drops internal events", () => {
    expect(toSessionUpdates({ type: "message_delta", messageId: "m1", text: "hi" })).toEqual([
      { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } },
    ]);
    expect(toSessionUpdates({ type: "reasoning_delta", messageId: "m1", text: "hmm" })[0]).toMatchObject({ sessionUpdate: "agent_thought_chunk", messageId: "m1" });
    expect(toSessionUpdates({ type: "message_end", messageId: "m1" })).toEqual([]);
    expect(toSessionUpdates({ type: "turn_end", stopReason: "end_turn" })).toEqual([]);
  });
});
