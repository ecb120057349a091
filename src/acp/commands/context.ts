import { messageCount, roleCounts } from "./counts.js";
import type { ContextUsage, SlashCommand } from "./types.js";

/** 12345 → "12,345" (locale-independent). */
export function grouped(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** The usage and compression lines of `/context`. Pure. */
export function contextUsageLines(usage: ContextUsage): string[] {
  const percent = usage.window > 0 ? ((usage.tokens / usage.window) * 100).toFixed(1) : "0.0";
  const threshold = Math.round(usage.threshold * usage.window);
  const share = `${Math.round(usage.threshold * 100)}%`;
  const lines = [`Context usage: ~${grouped(usage.tokens)} / ${grouped(usage.window)} tokens (${percent}%)`];
  if (usage.tokens >= threshold) lines.push(`Compression: due now (threshold ~${grouped(threshold)}, ${share}). Run /compress.`);
  else lines.push(`Compression: ~${grouped(threshold - usage.tokens)} tokens until threshold (~${grouped(threshold)}, ${share}).`);
  if (!usage.enabled) lines.push("Auto-compaction is disabled (compression.enabled: false); /compress still compresses manually.");
  return lines;
}

/** `/context`: message counts by role, model, and how full the window is. */
export const contextCommand: SlashCommand = {
  name: "context",
  description: "Show conversation context info",
  run(_args, ctx) {
    const { session } = ctx;
    const { history } = session;
    const lines =
      history.length === 0
        ? ["Conversation is empty (no messages yet)."]
        : [`Conversation: ${messageCount(history.length)}`, `  ${roleCounts(history)}`];
    lines.push(`Model: ${session.model}`, `Provider: ${session.providerId}`);
    lines.push(...contextUsageLines(session.contextUsage()));
    return { reply: lines.join("\n") };
  },
};
