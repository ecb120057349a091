/** One entry of an ACP `plan` update, in the shape the adapter sends (the SDK's `PlanEntry`). */
export interface TodoPlanEntry {
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "medium";
}

const CANCELLED_PREFIX = "[cancelled] ";

/**
 * The complete todo list as ACP plan entries, as the Hermes adapter maps it: entry text is the
 * item's `content`, else its `id` (trimmed); items with neither are skipped; `cancelled` items
 * become `completed` with a `[cancelled] ` prefix, so a client that replaces the whole plan keeps
 * them; `pending`, `in_progress` and `completed` map 1:1 and any other status becomes `pending`;
 * priority is always `medium`. Accepts loosely typed input (parsed history) and never throws.
 */
export function todosToPlanEntries(todos: readonly unknown[]): TodoPlanEntry[] {
  const entries: TodoPlanEntry[] = [];
  for (const todo of todos) {
    if (!todo || typeof todo !== "object") continue;
    const item = todo as { id?: unknown; content?: unknown; status?: unknown };
    const text = (textOf(item.content) || textOf(item.id)).trim();
    if (!text) continue;
    if (item.status === "cancelled") {
      entries.push({ content: `${CANCELLED_PREFIX}${text}`, status: "completed", priority: "medium" });
    } else {
      const status = item.status === "in_progress" || item.status === "completed" ? item.status : "pending";
      entries.push({ content: text, status, priority: "medium" });
    }
  }
  return entries;
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return "";
}
