import type { PlanEntry } from "@agentclientprotocol/sdk/unstable";
import type { TodoItem } from "../../tools/todo/details.js";
import type { ToolEnd } from "./types.js";

const CANCELLED_PREFIX = "[cancelled] ";

/**
 * A todo list as ACP plan entries, as the Hermes adapter maps it: entry text is the item's
 * `content`, else its `id` (trimmed); items with neither are skipped; `cancelled` items become
 * `completed` with a `[cancelled] ` prefix, so a client that replaces the whole plan keeps them;
 * `pending`, `in_progress` and `completed` map 1:1; priority is always `medium`. Pure.
 */
export function planEntries(todos: readonly TodoItem[]): PlanEntry[] {
  const entries: PlanEntry[] = [];
  for (const todo of todos) {
    const text = (todo.content || todo.id).trim();
    if (!text) continue;
    if (todo.status === "cancelled") entries.push({ content: `${CANCELLED_PREFIX}${text}`, status: "completed", priority: "medium" });
    else entries.push({ content: text, status: todo.status, priority: "medium" });
  }
  return entries;
}

/** The whole plan a finished todo call leaves, or undefined when it failed or carried no list. */
export function planFromTodo(event: ToolEnd): PlanEntry[] | undefined {
  if (event.tool !== "todo" || event.isError || !event.details) return undefined;
  return planEntries(event.details.todos);
}
