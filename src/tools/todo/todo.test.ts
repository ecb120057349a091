import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../llm/types.js";
import { describeCall, parseToolArgs, ToolRegistry } from "../registry.js";
import { ToolSessionState } from "../session-state.js";
import { hermesAcpTools } from "../toolsets.js";
import type { ToolContext, ToolResult } from "../types.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { restoreTodosFromHistory, todosFromHistory } from "./restore.js";
import { todoStoreOf, todoTool, type TodoDetails } from "./todo.js";
import { MAX_TODO_CONTENT_CHARS, MAX_TODO_ITEMS, TodoStore } from "./todo-store.js";

async function call(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseToolArgs(todoTool, JSON.stringify(args));
  if (!parsed.ok) throw new Error(parsed.error);
  return todoTool.execute(parsed.args, ctx);
}

function output(result: ToolResult): TodoDetails {
  expect(result.isError).toBeFalsy();
  const parsed = JSON.parse(result.content) as TodoDetails;
  expect(result.details).toEqual(parsed);
  return parsed;
}

describe("todo tool", () => {
  it("replaces the list and returns it with a summary, as JSON and as details", async () => {
    const ctx = toolContext();
    const result = output(
      await call(
        {
          todos: [
            { id: "1", content: "Inspect ACP", status: "completed" },
            { id: "2", content: "Patch renderer", status: "in_progress" },
            { id: "3", content: "Drop stale task", status: "cancelled" },
          ],
        },
        ctx,
      ),
    );
    expect(result).toEqual({
      todos: [
        { id: "1", content: "Inspect ACP", status: "completed" },
        { id: "2", content: "Patch renderer", status: "in_progress" },
        { id: "3", content: "Drop stale task", status: "cancelled" },
      ],
      summary: { total: 3, pending: 0, in_progress: 1, completed: 1, cancelled: 1 },
    });
    expect(Object.keys(JSON.parse((await call({}, ctx)).content) as object)).toEqual(["todos", "summary"]);
  });

  it("reads the current list when called without todos", async () => {
    const ctx = toolContext();
    expect(output(await call({}, ctx))).toEqual({
      todos: [],
      summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 },
    });
    await call({ todos: [{ id: "a", content: "A", status: "pending" }] }, ctx);
    expect(output(await call({}, ctx)).todos).toEqual([{ id: "a", content: "A", status: "pending" }]);
  });

  it("replace mode drops items not in the new list", async () => {
    const ctx = toolContext();
    await call({ todos: [{ id: "a", content: "A", status: "pending" }, { id: "b", content: "B", status: "pending" }] }, ctx);
    const after = output(await call({ todos: [{ id: "c", content: "C", status: "pending" }] }, ctx));
    expect(after.todos.map((todo) => todo.id)).toEqual(["c"]);
  });

  it("merge mode updates given fields by id and appends new items", async () => {
    const ctx = toolContext();
    await call({ todos: [{ id: "a", content: "A", status: "pending" }, { id: "b", content: "B", status: "pending" }] }, ctx);
    const after = output(
      await call({ merge: true, todos: [{ id: "b", status: "completed" }, { id: "a", content: "A, revised" }, { id: "c", content: "C" }] }, ctx),
    );
    expect(after.todos).toEqual([
      { id: "a", content: "A, revised", status: "pending" },
      { id: "b", content: "B", status: "completed" },
      { id: "c", content: "C", status: "pending" },
    ]);
    expect(after.summary).toEqual({ total: 3, pending: 2, in_progress: 0, completed: 1, cancelled: 0 });
  });

  it("keeps one list per session", async () => {
    const one = toolContext({ state: new ToolSessionState() });
    const two = toolContext({ state: new ToolSessionState() });
    await call({ todos: [{ id: "a", content: "A", status: "pending" }] }, one);
    expect(output(await call({}, two)).todos).toEqual([]);
    expect(todoStoreOf(one.state).read()).toHaveLength(1);
  });

  it("accepts numeric ids and rejects unknown statuses with a message naming the field", async () => {
    const ctx = toolContext();
    expect(output(await call({ todos: [{ id: 1, content: "one", status: "pending" }] }, ctx)).todos[0]?.id).toBe("1");
    const parsed = parseToolArgs(todoTool, JSON.stringify({ todos: [{ id: "x", content: "y", status: "done" }] }));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain("todos.0.status");
  });

  it("is an 'other' tool that mutates state, titled by item count", () => {
    expect(todoTool).toMatchObject({ name: "todo", kind: "other", mutating: true });
    const describe = (args: unknown): string => describeCall(todoTool, "todo", args, { cwd: "/" }).title;
    expect(describe({})).toBe("todo");
    expect(describe({ todos: [{ id: "1", content: "a", status: "pending" }] })).toBe("todo (1 item)");
    expect(describe({ todos: [{ id: "1" }, { id: "2" }, { id: "3" }] })).toBe("todo (3 items)");
  });

  it("is registered in the hermes-acp toolset, with a JSON schema for the model", () => {
    expect(hermesAcpTools()).toContain(todoTool);
    const schema = new ToolRegistry([todoTool]).schemas()[0];
    expect(schema?.name).toBe("todo");
    expect(JSON.stringify(schema?.parameters)).toContain("in_progress");
  });
});

describe("TodoStore", () => {
  it("keeps the last occurrence of a repeated id, in its position", () => {
    const store = new TodoStore();
    expect(
      store.write(
        [
          { id: "a", content: "first a" },
          { id: "b", content: "b" },
          { id: "a", content: "second a" },
        ],
        false,
      ),
    ).toEqual([
      { id: "b", content: "b", status: "pending" },
      { id: "a", content: "second a", status: "pending" },
    ]);
  });

  it("moves the in-progress item ahead of earlier pending items", () => {
    const store = new TodoStore();
    const list = store.write(
      [
        { id: "1", content: "done", status: "completed" },
        { id: "2", content: "later", status: "pending" },
        { id: "3", content: "now", status: "in_progress" },
      ],
      false,
    );
    expect(list.map((item) => item.id)).toEqual(["1", "3", "2"]);
  });

  it("fills missing text and status, trims, and caps text and list length", () => {
    const store = new TodoStore();
    const long = "x".repeat(MAX_TODO_CONTENT_CHARS + 50);
    const [blank, capped] = store.write([{ id: " a ", content: "   " }, { id: "b", content: long }], false);
    expect(blank).toEqual({ id: "a", content: "(no description)", status: "pending" });
    expect(capped?.content).toHaveLength(MAX_TODO_CONTENT_CHARS);
    expect(capped?.content.endsWith("… [truncated]")).toBe(true);
    const many = Array.from({ length: MAX_TODO_ITEMS + 10 }, (_, i) => ({ id: String(i), content: `t${i}` }));
    const kept = store.write(many, false);
    expect(kept).toHaveLength(MAX_TODO_ITEMS);
    expect(kept[0]?.id).toBe("0");
  });

  it("returns copies that cannot change the store", () => {
    const store = new TodoStore();
    const [item] = store.write([{ id: "a", content: "A" }], false);
    if (item) item.content = "changed";
    expect(store.read()[0]?.content).toBe("A");
  });
});

describe("restoring todos from history", () => {
  const assistantCall = (id: string, name: string): ChatMessage => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
  });
  const toolMessage = (id: string, content: string): ChatMessage => ({ role: "tool", tool_call_id: id, content });
  const resultOf = (todos: unknown[]): string => JSON.stringify({ todos, summary: {} });

  it("takes the newest todo result and ignores other tools' results", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "plan it" },
      assistantCall("c1", "todo"),
      toolMessage("c1", resultOf([{ id: "1", content: "Old", status: "pending" }])),
      assistantCall("c2", "todo"),
      toolMessage("c2", resultOf([{ id: "1", content: "Ship it", status: "in_progress" }, { id: "2", content: "Odd", status: "weird" }])),
      assistantCall("c3", "read_file"),
      toolMessage("c3", resultOf([{ id: "x", content: "not a todo", status: "pending" }])),
    ];
    expect(todosFromHistory(history)).toEqual([
      { id: "1", content: "Ship it", status: "in_progress" },
      { id: "2", content: "Odd", status: "pending" },
    ]);
    const state = new ToolSessionState();
    expect(restoreTodosFromHistory(history, state)).toEqual([
      { id: "1", content: "Ship it", status: "in_progress" },
      { id: "2", content: "Odd", status: "pending" },
    ]);
    expect(todoStoreOf(state).read()).toHaveLength(2);
  });

  it("restores what a real todo call recorded into a fresh session's store", async () => {
    const live = toolContext({ state: new ToolSessionState() });
    const result = await call({ todos: [{ id: "1", content: "Ship it", status: "in_progress" }, { id: "2", content: "Later" }] }, live);
    const history: ChatMessage[] = [assistantCall("c1", "todo"), toolMessage("c1", result.content)];
    const restored = toolContext({ state: new ToolSessionState() });
    restoreTodosFromHistory(history, restored.state);
    expect(output(await call({}, restored)).todos).toEqual((result.details as TodoDetails).todos);
  });

  it("skips unparseable results and leaves the store alone when history has none", () => {
    const history: ChatMessage[] = [
      assistantCall("c1", "todo"),
      toolMessage("c1", resultOf([{ id: "1", content: "Kept", status: "completed" }])),
      assistantCall("c2", "todo"),
      toolMessage("c2", "Invalid arguments for todo: todos.0.status: bad"),
    ];
    expect(todosFromHistory(history)).toEqual([{ id: "1", content: "Kept", status: "completed" }]);

    const state = new ToolSessionState();
    todoStoreOf(state).write([{ id: "live", content: "Live" }], false);
    expect(restoreTodosFromHistory([{ role: "user", content: "hi" }], state)).toBeUndefined();
    expect(todoStoreOf(state).read()[0]?.id).toBe("live");
  });
});
