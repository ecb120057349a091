import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { toolEndEvent } from "../../agent/events.js";
import { prepareToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import { todoTool } from "../../tools/todo/todo.js";
import { planEntries, planFromTodo } from "./plan.js";

describe("planEntries", () => {
  it("maps the complete list the way the Hermes adapter does", () => {
    expect(
      planEntries([
        { id: "1", content: "Inspect ACP", status: "completed" },
        { id: "2", content: "Patch renderer", status: "in_progress" },
        { id: "3", content: "Drop stale task", status: "cancelled" },
        { id: "4", content: "Write docs", status: "pending" },
      ]),
    ).toEqual([
      { content: "Inspect ACP", status: "completed", priority: "medium" },
      { content: "Patch renderer", status: "in_progress", priority: "medium" },
      { content: "[cancelled] Drop stale task", status: "completed", priority: "medium" },
      { content: "Write docs", status: "pending", priority: "medium" },
    ]);
  });

  it("falls back to the id, skips entries with neither text nor id, and trims", () => {
    expect(
      planEntries([
        { id: "ship-it", content: "", status: "in_progress" },
        { id: "", content: "", status: "pending" },
        { id: " ", content: "  ", status: "pending" },
        { id: "7", content: "  Trim me  ", status: "pending" },
      ]),
    ).toEqual([
      { content: "ship-it", status: "in_progress", priority: "medium" },
      { content: "Trim me", status: "pending", priority: "medium" },
    ]);
  });
});

describe("planFromTodo", () => {
  const tools = new ToolRegistry([todoTool]);
  async function todoEnd(args: unknown) {
    const call = prepareToolCall({ id: "t1", type: "function", function: { name: "todo", arguments: JSON.stringify(args) } }, tools, { cwd: "/w" });
    const result = await todoTool.execute(call.args, toolContext());
    return toolEndEvent(call, { content: result.content, isError: result.isError === true, details: result.details });
  }

  it("maps a todo result's details directly", async () => {
    expect(planFromTodo(await todoEnd({ todos: [{ id: "1", content: "Ship it", status: "in_progress" }] }))).toEqual([
      { content: "Ship it", status: "in_progress", priority: "medium" },
    ]);
  });

  it("sends no plan for a failed call, another tool, or a result without details", async () => {
    const live = await todoEnd({});
    expect(planFromTodo({ ...live, isError: true })).toBeUndefined();
    expect(planFromTodo({ ...live, details: undefined })).toBeUndefined();
    const other = prepareToolCall({ id: "x", type: "function", function: { name: "echo", arguments: "{}" } }, tools, { cwd: "/w" });
    expect(planFromTodo(toolEndEvent(other, { content: live.content, isError: false, details: live.details }))).toBeUndefined();
  });
});
