import type { PlanEntry } from "@agentclientprotocol/sdk/unstable";
import { todosToPlanEntries } from "../../tools/todo/plan-entries.js";
import { isRecord, textContent, truncate } from "./text.js";
import type { ToolEnd, ToolRenderer } from "./types.js";

interface Todo {
  id: string;
  content: string;
  status: string;
}

const ICONS: Record<string, string> = { completed: "✅", in_progress: "🔄", pending: "⏳", cancelled: "✗" };

function todosOf(value: unknown): Todo[] | undefined {
  const list = isRecord(value) ? value.todos : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.filter(isRecord).map((item) => ({ id: String(item.id ?? ""), content: String(item.content ?? ""), status: String(item.status ?? "pending") }));
}

/** The plan a finished todo call produces, or undefined when it failed or carried no list. */
export function planFromTodo(event: ToolEnd): PlanEntry[] | undefined {
  if (event.name !== "todo" || event.isError) return undefined;
  const todos = todosOf(event.details);
  return todos ? todosToPlanEntries(todos) : undefined;
}

export const todoRenderer: ToolRenderer = {
  start(event) {
    const todos = todosOf(event.args);
    if (!todos) return [textContent("Reading todo list")];
    const lines = todos.slice(0, 8).map((todo) => `- ${todo.status}: ${todo.content || todo.id}`);
    if (todos.length > 8) lines.push(`... ${todos.length - 8} more`);
    return [textContent(`Updating todo list\n\n${lines.join("\n")}`)];
  },
  complete(event) {
    const todos = todosOf(event.details);
    if (event.isError || !todos) return { content: [textContent(truncate(event.content))] };
    const count = (status: string): number => todos.filter((todo) => todo.status === status).length;
    const lines = ["**Todo list**", ...todos.map((todo) => `- ${ICONS[todo.status] ?? "•"} ${todo.content || todo.id}`)];
    const cancelled = count("cancelled");
    lines.push(
      "",
      `**Progress:** ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending${cancelled ? `, ${cancelled} cancelled` : ""}`,
    );
    return { content: [textContent(truncate(lines.join("\n")))] };
  },
};
