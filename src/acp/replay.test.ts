import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../runtime/runtime.js";
import { ToolRegistry } from "../tools/registry.js";
import { terminalTool } from "../tools/terminal/terminal.js";
import { todoTool } from "../tools/todo/todo.js";
import { replayUpdates } from "./replay.js";

const tools = new ToolRegistry([terminalTool, todoTool]);
const callEntry = (id: string, name: string, args: string): TranscriptEntry => ({
  message: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }] },
});

describe("replayUpdates", () => {
  it("shows a command that ran in the editor's (since released) terminal as its stored output", () => {
    const updates = replayUpdates(
      [
        callEntry("t1", "terminal", '{"command":"make"}'),
        {
          message: { role: "tool", tool_call_id: "t1", content: '{"output":"built","exit_code":0}' },
          toolOutcome: { isError: false, details: { command: "make", cwd: "/w", exitCode: 0, output: "built", terminalId: "term-gone" } },
        },
      ],
      tools,
      "/w",
    );
    const end = updates.at(-1);
    expect(JSON.stringify(end)).not.toContain("term-gone");
    expect(JSON.stringify(end)).toContain("built");
    expect(end).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
  });

  it("replays stored details that no longer fit their tool's type as the plain result text", () => {
    const content = '{"output":"built","exit_code":0}';
    const updates = replayUpdates(
      [
        callEntry("t1", "terminal", '{"command":"make"}'),
        { message: { role: "tool", tool_call_id: "t1", content }, toolOutcome: { isError: false, details: { exit: "zero", lines: ["built"] } } },
      ],
      tools,
      "/w",
    );
    expect(updates).toEqual([
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "t1", title: "terminal: make", kind: "execute" }),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: content } }],
        rawOutput: { output: "built", exit_code: 0 },
        _meta: { hermes: { toolName: "terminal" } },
      },
    ]);
  });

  it("sends the plan again after a stored todo call", () => {
    const details = { todos: [{ id: "1", content: "ship", status: "in_progress" }], summary: { total: 1, pending: 0, in_progress: 1, completed: 0, cancelled: 0 } };
    const updates = replayUpdates(
      [
        callEntry("d1", "todo", JSON.stringify({ todos: details.todos })),
        { message: { role: "tool", tool_call_id: "d1", content: JSON.stringify(details) }, toolOutcome: { isError: false, details } },
      ],
      tools,
      "/w",
    );
    expect(updates.at(-1)).toEqual({ sessionUpdate: "plan", entries: [{ content: "ship", status: "in_progress", priority: "medium" }] });
  });

  it("never throws for unknown tools, bad JSON or a result without its call", () => {
    const updates = replayUpdates(
      [
        callEntry("u1", "gone_tool", '{"a":1}'),
        callEntry("b1", "terminal", '{"command":'),
        { message: { role: "tool", tool_call_id: "b1", content: "Invalid JSON" }, toolOutcome: { isError: true } },
        { message: { role: "tool", tool_call_id: "orphan", name: "terminal", content: "late" } },
      ],
      tools,
      "/w",
    );
    expect(updates[0]).toMatchObject({ toolCallId: "u1", title: "gone_tool", kind: "other", rawInput: { a: 1 } });
    expect(updates[1]).toMatchObject({ toolCallId: "b1", title: "terminal", rawInput: { raw: '{"command":' }, content: [] });
    expect(updates[2]).toMatchObject({ toolCallId: "b1", status: "failed" });
    expect(updates[3]).toMatchObject({ toolCallId: "orphan", status: "completed", content: [{ type: "content", content: { type: "text", text: "late" } }] });
  });
});
