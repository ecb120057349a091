import { z } from "zod";
import type { ToolSessionState } from "../session-state.js";
import { defineTool, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import { TODO_STATUSES, type TodoDetails, type TodoItem } from "./details.js";
import { summarizeTodos, TodoStore } from "./todo-store.js";

export type { TodoDetails } from "./details.js";

const TODO_STATE = Symbol("todo-store");

/** The session's todo list, created empty on first use. */
export function todoStoreOf(state: ToolSessionState): TodoStore {
  return state.get(TODO_STATE, () => new TodoStore());
}

const todoItemParams = z.lazy(() => z.object({
  id: z.union([z.string().trim().min(1), z.number()]).describe("Unique id, e.g. '1' or 'tests'"),
  content: z.string().optional().describe("The task; may be omitted when merging a status change"),
  status: z.enum(TODO_STATUSES).optional().describe("Default pending for new items"),
}));

const todoParams = z.lazy(() => z.object({
  todos: z
    .array(todoItemParams)
    .optional()
    .describe("Items to write. Omit to read the current list."),
  merge: z
    .boolean()
    .optional()
    .describe("true: update items by id and append new ones; false (default): replace the list."),
}));

export type TodoArgs = z.infer<typeof todoParams>;

const DESCRIPTION = [
  "Keep a task list for work with 3 or more steps, or when the user gives several tasks.",
  "For tasks over 'all N items', list every item so none is silently dropped.",
  "Call with no parameters to read the current list. List order is priority; keep only one item in_progress at a time.",
  "Mark an item completed only after the work is verified, never on intent. If something fails, cancel it and add a revised item.",
  "Always returns the full current list with a summary.",
].join(" ");

function describeTodo(args: TodoArgs): ToolDescription {
  if (!args.todos) return { title: "todo", locations: [] };
  const count = args.todos.length;
  return { title: `todo (${count} ${count === 1 ? "item" : "items"})`, locations: [] };
}

/** The result for a list: JSON `{todos, summary}` for the model, the same object as `details`. */
export function todoResult(todos: TodoItem[]): ToolResult<TodoDetails> {
  const details: TodoDetails = { todos, summary: summarizeTodos(todos) };
  return { content: JSON.stringify(details), details };
}

/**
 * `todo`: with `todos`, replaces the session's list (or merges into it with `merge: true`); without,
 * reads it. The list lives in `ctx.state`, one per session. Never fails: every call returns the
 * whole list and its summary.
 */
export const todoTool = defineTool({
  name: "todo",
  description: DESCRIPTION,
  kind: "other",
  mutating: true,
  params: todoParams,
  describe: describeTodo,
  async execute(args: TodoArgs, ctx: ToolContext): Promise<ToolResult<TodoDetails>> {
    const store = todoStoreOf(ctx.state);
    if (!args.todos) return todoResult(store.read());
    const inputs = args.todos.map((todo) => ({ id: String(todo.id), content: todo.content, status: todo.status }));
    return todoResult(store.write(inputs, args.merge ?? false));
  },
});
