import type { ChatMessage } from "../llm/types.js";
import type { ToolOutcome } from "./loop.js";

export interface HistoryEntry {
  message: ChatMessage;
  toolOutcome?: ToolOutcome;
}

export const INTERRUPTED_TOOL_RESULT = "Interrupted: the agent stopped before this tool call finished, so it has no result.";

/**
 * Makes a stored conversation valid for a model again after a crash: every tool call gets a
 * result (an "interrupted" error result where the process died before it finished), placed right
 * after the calls of its assistant message; tool results whose call is not there are dropped.
 * Pure; the input is not changed. A valid history comes back equal.
 */
export function repairToolPairs<T extends HistoryEntry>(entries: readonly T[]): Array<T | HistoryEntry> {
  const repaired: Array<T | HistoryEntry> = [];
  let open: Array<{ id: string; name: string }> = [];
  const closeOpen = (): void => {
    for (const call of open) {
      repaired.push({
        message: { role: "tool", tool_call_id: call.id, name: call.name, content: INTERRUPTED_TOOL_RESULT },
        toolOutcome: { isError: true },
      });
    }
    open = [];
  };
  for (const entry of entries) {
    const message = entry.message;
    if (message.role === "tool") {
      const index = open.findIndex((call) => call.id === message.tool_call_id);
      if (index < 0) continue; // a result without its call
      open.splice(index, 1);
      repaired.push(entry);
      continue;
    }
    closeOpen();
    repaired.push(entry);
    if (message.role === "assistant") open = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name }));
  }
  closeOpen();
  return repaired;
}
