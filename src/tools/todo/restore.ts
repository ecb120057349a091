import type { ChatMessage } from "../../llm/types.js";
import type { ToolSessionState } from "../session-state.js";
import { TODO_STATUSES, type TodoInput, type TodoItem, type TodoStatus } from "./todo-store.js";
import { todoStoreOf } from "./todo.js";

/** Larger todo results in history are not trusted for restoring (Hermes' bound). */
export const MAX_TODO_RESULT_CHARS = 512_000;

/**
 * The todo list recorded by the newest `todo` tool result in `messages` (OpenAI chat shape), or
 * undefined when there is none. A result counts when its `tool_call_id` belongs to an assistant
 * call named `todo` (or the message is named `todo`) and its content is JSON with a `todos` array;
 * malformed items are dropped, unknown statuses become `pending`. Never throws.
 */
export function todosFromHistory(messages: readonly ChatMessage[]): TodoInput[] | undefined {
  const todoCallIds = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) if (call.function.name === "todo") todoCallIds.add(call.id);
  }
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as ChatMessage;
    if (message.role !== "tool") continue;
    if (!todoCallIds.has(message.tool_call_id) && message.name !== "todo") continue;
    const todos = parseTodos(message.content);
    if (todos) return todos;
  }
  return undefined;
}

/**
 * Hydrates a session's todo store from its history, as Hermes does: the list the newest `todo`
 * result in `history` recorded (see `todosFromHistory`), normalized like any write. For a session
 * restored from state.db (load, resume, fork): call once with its history and tool state, after
 * the session is built and before its first turn. Returns the restored list, or undefined (store
 * untouched) when history has no todo result. Never throws.
 */
export function restoreTodosFromHistory(history: readonly ChatMessage[], toolState: ToolSessionState): TodoItem[] | undefined {
  const todos = todosFromHistory(history);
  return todos ? todoStoreOf(toolState).restore(todos) : undefined;
}

function parseTodos(content: string): TodoInput[] | undefined {
  if (content.length > MAX_TODO_RESULT_CHARS) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return undefined;
  }
  const list = (parsed as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(list)) return undefined;
  const todos: TodoInput[] = [];
  for (const raw of list) {
    if (!raw || typeof raw !== "object") continue;
    const item = raw as { id?: unknown; content?: unknown; status?: unknown };
    const id = typeof item.id === "string" || typeof item.id === "number" ? String(item.id).trim() : "";
    if (!id) continue;
    const status = TODO_STATUSES.includes(item.status as TodoStatus) ? (item.status as TodoStatus) : "pending";
    todos.push({ id, content: typeof item.content === "string" ? item.content : undefined, status });
  }
  return todos;
}
