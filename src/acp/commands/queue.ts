import type { SlashCommand } from "./types.js";

/** `/queue <prompt>`: runs the prompt after the current turn (or after the next one when idle). */
export const queueCommand: SlashCommand = {
  name: "queue",
  description: "Queue a prompt to run after the current turn finishes",
  hint: "prompt to run next",
  run(args, ctx) {
    if (!args) return { reply: "Usage: /queue <prompt>" };
    return { reply: queuedReply(ctx.enqueue(args)) };
  },
};

/** The reply to a prompt that waits for the running turn. */
export function queuedReply(count: number): string {
  return `Queued for the next turn. (${count} queued)`;
}
