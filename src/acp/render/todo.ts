import type { TodoStatus } from "../../tools/todo/details.js";
import { textContent, truncate } from "./text.js";
import type { ToolRenderer } from "./types.js";

const ICONS: Record<TodoStatus, string> = { completed: "✅", in_progress: "🔄", pending: "⏳", cancelled: "✗" };

/**
 * todo: the items being written at start (up to 8, then `... N more`), or `Reading todo list`;
 * the whole list with icons and a progress line at the end. The plan itself is plan.ts.
 */
export const todoRenderer: ToolRenderer<"todo"> = {
  start(event) {
    const todos = event.input?.todos;
    if (!todos) return [textContent("Reading todo list")];
    const lines = todos.slice(0, 8).map((todo) => `- ${todo.status ?? "pending"}: ${todo.content || String(todo.id)}`);
    if (todos.length > 8) lines.push(`... ${todos.length - 8} more`);
    return [textContent(`Updating todo list\n\n${lines.join("\n")}`)];
  },
  complete(event) {
    const todos = event.details?.todos;
    if (event.isError || !todos) return { content: [textContent(truncate(event.content))] };
    const count = (status: TodoStatus): number => todos.filter((todo) => todo.status === status).length;
    const lines = ["**Todo list**", ...todos.map((todo) => `- ${ICONS[todo.status]} ${todo.content || todo.id}`)];
    const cancelled = count("cancelled");
    lines.push(
      "",
      `**Progress:** ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending${cancelled ? `, ${cancelled} cancelled` : ""}`,
    );
    return { content: [textContent(truncate(lines.join("\n")))] };
  },
};
