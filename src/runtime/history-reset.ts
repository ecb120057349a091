import type { ChatMessage } from "../llm/types.js";

/**
 * `/reset` keeps the earlier messages in state.db (session search and `hermes sessions export`
 * still find them) and appends this marker; everything that rebuilds the conversation the model
 * sees, or replays it to an editor, starts after the last marker.
 */
export const RESET_MARKER_TEXT = "[Conversation history cleared by /reset; earlier messages are not part of the conversation.]";

export function resetMarker(): ChatMessage {
  return { role: "system", content: RESET_MARKER_TEXT };
}

export function isResetMarker(message: ChatMessage): boolean {
  return message.role === "system" && message.content === RESET_MARKER_TEXT;
}

/** The entries after the last reset marker (all of them when there is none). Pure. */
export function afterLastReset<T>(entries: readonly T[], messageOf: (entry: T) => ChatMessage): T[] {
  for (let index = entries.length - 1; index >= 0; index--) {
    if (isResetMarker(messageOf(entries[index] as T))) return entries.slice(index + 1);
  }
  return [...entries];
}
