import type { ChatMessage } from "../../llm/types.js";

/** `user: a, assistant: b, tool: c` (plus `system: d` when there are any). */
export function roleCounts(history: readonly ChatMessage[]): string {
  const counts = { user: 0, assistant: 0, tool: 0, system: 0 };
  for (const message of history) counts[message.role] += 1;
  const parts = [`user: ${counts.user}`, `assistant: ${counts.assistant}`, `tool: ${counts.tool}`];
  if (counts.system > 0) parts.push(`system: ${counts.system}`);
  return parts.join(", ");
}

/** `1 message` / `N messages`. */
export function messageCount(count: number): string {
  return `${count} message${count === 1 ? "" : "s"}`;
}
