import type { TodoItem, TodoStatus, TodoSummary } from "./details.js";

export { TODO_STATUSES, type TodoItem, type TodoStatus, type TodoSummary } from "./details.js";

/** An item as the model writes it: in merge mode only `id` is needed. */
export interface TodoInput {
  id: string;
  content?: string | undefined;
  status?: TodoStatus | undefined;
}

/** Longest item text kept; longer text is cut with a marker. */
export const MAX_TODO_CONTENT_CHARS = 4000;
/** Most items kept; the head of the list (highest priority) survives. */
export const MAX_TODO_ITEMS = 256;
const TRUNCATION_MARKER = "… [truncated]";
const NO_DESCRIPTION = "(no description)";

/**
 * One session's todo list, as Hermes keeps it: list order is priority; ids are unique (a repeated
 * id keeps its last occurrence, in that position); item text is trimmed and capped at 4,000 chars;
 * the list is capped at 256 items; the first `in_progress` item is moved ahead of any `pending`
 * item before it. Reads return copies, so callers cannot change the store.
 */
export class TodoStore {
  private items: TodoItem[] = [];

  /**
   * `merge: false` replaces the list (missing text becomes "(no description)", missing status
   * `pending`). `merge: true` updates items by id (only the fields given; empty text is ignored)
   * and appends unknown ids at the end. Returns the list after the write.
   */
  write(todos: readonly TodoInput[], merge: boolean): TodoItem[] {
    const unique = dedupeById(todos);
    if (!merge) {
      this.items = unique.map(toItem);
    } else {
      const byId = new Map(this.items.map((item) => [item.id, item]));
      for (const input of unique) {
        const existing = byId.get(input.id.trim());
        if (existing) {
          const content = input.content?.trim();
          if (content) existing.content = capContent(content);
          if (input.status) existing.status = input.status;
        } else {
          const item = toItem(input);
          byId.set(item.id, item);
          this.items.push(item);
        }
      }
    }
    this.items = normalizeOrder(this.items).slice(0, MAX_TODO_ITEMS);
    return this.read();
  }

  read(): TodoItem[] {
    return this.items.map((item) => ({ ...item }));
  }

  /** Replaces the list with a trusted snapshot (history), applying the same normalization. */
  restore(todos: readonly TodoInput[]): TodoItem[] {
    return this.write(todos, false);
  }
}

/** Counts per status, as in Hermes' result JSON. */
export function summarizeTodos(todos: readonly TodoItem[]): TodoSummary {
  const summary: TodoSummary = { total: todos.length, pending: 0, in_progress: 0, completed: 0, cancelled: 0 };
  for (const item of todos) summary[item.status] += 1;
  return summary;
}

function toItem(input: TodoInput): TodoItem {
  const content = input.content?.trim();
  return {
    id: input.id.trim(),
    content: content ? capContent(content) : NO_DESCRIPTION,
    status: input.status ?? "pending",
  };
}

function capContent(content: string): string {
  if (content.length <= MAX_TODO_CONTENT_CHARS) return content;
  return content.slice(0, MAX_TODO_CONTENT_CHARS - TRUNCATION_MARKER.length) + TRUNCATION_MARKER;
}

/** Keeps the last occurrence of each id, in that occurrence's position. */
function dedupeById(todos: readonly TodoInput[]): TodoInput[] {
  const lastIndex = new Map<string, number>();
  todos.forEach((todo, index) => lastIndex.set(todo.id.trim(), index));
  return todos.filter((todo, index) => lastIndex.get(todo.id.trim()) === index);
}

/** Moves the first in-progress item ahead of the earliest pending item before it. */
function normalizeOrder(items: TodoItem[]): TodoItem[] {
  const active = items.findIndex((item) => item.status === "in_progress");
  if (active < 0) return items;
  const pending = items.slice(0, active).findIndex((item) => item.status === "pending");
  if (pending < 0) return items;
  const out = [...items];
  const [moved] = out.splice(active, 1);
  out.splice(pending, 0, moved as TodoItem);
  return out;
}
