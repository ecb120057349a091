import { describe, expect, it } from "vitest";
import { toSessionUpdate } from "./event-bridge.js";
import { fenced, toolEndUpdate, toolStartUpdate } from "./tool-render.js";

describe("tool rendering", () => {
  it("starts a read with title, kind, locations and raw input but no content", () => {
    expect(
      toolStartUpdate({
        type: "tool_start",
        callId: "c1",
        name: "read_file",
        args: { path: "a.ts", offset: 3 },
        title: "read: a.ts",
        kind: "read",
        locations: [{ path: "/w/a.ts", line: 3 }],
      }),
    ).toEqual({
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

  it("shows other tools' arguments as JSON and falls back to the tool name for a missing title", () => {
    const update = toolStartUpdate({ type: "tool_start", callId: "c2", name: "mystery", args: { q: 1 }, title: "", kind: "other", locations: [] });
    expect(update).toMatchObject({ title: "mystery", content: [{ type: "content", content: { type: "text", text: '{\n  "q": 1\n}' } }] });
  });

  it("completes a read with a header and a fence longer than any backtick run in the file", () => {
    const update = toolEndUpdate({
      type: "tool_end",
      callId: "c1",
      name: "read_file",
      content: "{}",
      details: { path: "/w/a.md", offset: 1, limit: 500, totalLines: 2, content: "1|```js\n2|x" },
      isError: false,
    });
    expect(update).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
    const text = JSON.stringify(update);
    expect(text).toContain("Read /w/a.md — 2 total lines");
    expect(text).toContain("````\\n1|```js\\n2|x\\n````");
  });

  it("marks failures as failed and shows the error text", () => {
    const update = toolEndUpdate({ type: "tool_end", callId: "c3", name: "read_file", content: '{"error":"File not found: x"}', isError: true });
    expect(update).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c3",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Read failed: File not found: x" } }],
    });
  });

  it("truncates long results for display", () => {
    const update = toolEndUpdate({ type: "tool_end", callId: "c4", name: "other", content: "x".repeat(20_000), isError: false });
    const text = (update as { content: Array<{ content: { text: string } }> }).content[0]!.content.text;
    expect(text.length).toBeLessThanOrEqual(5000);
    expect(text).toContain("20000 chars total, truncated");
  });

  it("fences plain text with three backticks", () => {
    expect(fenced("a")).toBe("```\na\n```");
  });
});

describe("event bridge", () => {
  it("maps deltas to chunks carrying the message id and drops internal events", () => {
    expect(toSessionUpdate({ type: "message_delta", messageId: "m1", text: "hi" })).toEqual({
      sessionUpdate: "agent_message_chunk",
      messageId: "m1",
      content: { type: "text", text: "hi" },
    });
    expect(toSessionUpdate({ type: "reasoning_delta", messageId: "m1", text: "hmm" })).toMatchObject({ sessionUpdate: "agent_thought_chunk", messageId: "m1" });
    expect(toSessionUpdate({ type: "message_end", messageId: "m1" })).toBeUndefined();
    expect(toSessionUpdate({ type: "turn_end", stopReason: "end_turn" })).toBeUndefined();
  });
});
