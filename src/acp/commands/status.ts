import { messageCount, roleCounts } from "./counts.js";
import type { SlashCommand } from "./types.js";

/** `/status`: session id, title, cwd, model, provider, mode, message counts, cost, turn and queue. */
export const statusCommand: SlashCommand = {
  name: "status",
  description: "Show session, model, and message counts",
  run(_args, ctx) {
    const { session } = ctx;
    return {
      reply: [
        `Session: ${session.id}`,
        `Title: ${session.currentTitle ?? "(none yet)"}`,
        `Working directory: ${session.cwd}`,
        `Model: ${session.model}`,
        `Provider: ${session.providerId}`,
        `Mode: ${session.approvals.mode}`,
        `Messages: ${messageCount(session.history.length)} (${roleCounts(session.history)})`,
        // only once a provider or `pricing:` gave a price (unknown is not free)
        ...(session.costUsd > 0 ? [`Cost: $${session.costUsd.toFixed(4)} (USD, this session)`] : []),
        `Turn: ${ctx.turnActive ? "running" : "idle"}`,
        `Queued prompts: ${ctx.queueLength}`,
      ].join("\n"),
    };
  },
};
