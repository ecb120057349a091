import { describe, expect, it } from "vitest";
import { toolEndEvent, toolProgressEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import { delegateTaskTool } from "../../tools/delegate/delegate-task.js";
import type { DelegateDetails, DelegateResultRow } from "../../tools/delegate/details.js";
import { prepareToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import { toolEndUpdate, toolProgressUpdate, toolStartUpdate } from "../tool-render.js";

const TOOLS = new ToolRegistry([delegateTaskTool]);
const prepared = (args: unknown) => prepareToolCall({ id: "d1", type: "function", function: { name: "delegate_task", arguments: JSON.stringify(args) } } satisfies ToolCall, TOOLS, { cwd: "/w" });
const text = (update: unknown): string => ((update as { content?: Array<{ content?: { text?: string } }> }).content ?? []).map((block) => block.content?.text ?? "").join("\n");
const row = (over: Partial<DelegateResultRow>): DelegateResultRow => ({
  taskIndex: 0,
  goal: "g",
  status: "completed",
  summary: "all good",
  role: "leaf",
  durationSeconds: 1.5,
  apiCalls: 2,
  model: "m",
  filesChanged: [],
  tools: [],
  ...over,
});
const end = (details: DelegateDetails, args: unknown = { goal: "g" }, isError = false) => toolEndUpdate(toolEndEvent(prepared(args), { content: JSON.stringify(details), isError, details }));

describe("delegate_task rendering", () => {
  it("starts with the goal, or the numbered tasks and their roles", () => {
    expect(text(toolStartUpdate(toolStartEvent(prepared({ goal: "fix the parser" }))))).toBe("Delegating task:\nfix the parser");
    expect(text(toolStartUpdate(toolStartEvent(prepared({ tasks: [{ goal: "a" }, { goal: "b", role: "orchestrator" }] }))))).toBe("Delegating 2 tasks\n\n1. a (leaf)\n2. b (orchestrator)");
  });

  it("shows each child's status, summary, files and tools; failed when none completed", () => {
    const ok = end({ mode: "run", totalDurationSeconds: 3, results: [row({ filesChanged: ["/w/a.ts"], tools: ["read_file", "patch", "read_file"] }), row({ taskIndex: 1, status: "interrupted", summary: null, error: "cancelled", agent: "codex" })] });
    expect(text(ok)).toBe(
      "Delegation results: 2 tasks in 3s\n\n✅ Task 1: completed (m, role=leaf, 1.5s)\nall good\nFiles changed: /w/a.ts\nTools: read_file, patch\n\n⚠ Task 2: interrupted (codex, role=leaf, 1.5s)\nError: cancelled",
    );
    expect(ok).toMatchObject({ status: "completed" });
    expect(end({ mode: "run", totalDurationSeconds: 1, results: [row({ status: "failed", summary: null })] })).toMatchObject({ status: "failed" });
    expect(end({ error: "Too many tasks" }, {}, true)).toMatchObject({ status: "failed" });
    expect(text(end({ mode: "dispatched", delegationId: "deleg_1", goal: "long", status: "running" }))).toMatch(/^Running in the background as deleg_1: long/);
  });

  it("shows the children's latest lines while they run", () => {
    const update = toolProgressUpdate(toolProgressEvent(prepared({ goal: "g" }), { lines: ["[child 1] read: a.ts", "[child 2] write: b.ts"], dropped: 3 }));
    expect(text(update)).toBe("… 3 earlier lines\n[child 1] read: a.ts\n[child 2] write: b.ts");
  });
});
