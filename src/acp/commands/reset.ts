import type { SlashCommand } from "./types.js";

/**
 * `/reset`: the model sees nothing of the conversation from the next turn on; the session keeps
 * its id. What happens to the stored messages is `AgentSession.resetHistory`'s contract.
 */
export const resetCommand: SlashCommand = {
  name: "reset",
  description: "Clear conversation history",
  exclusive: () => true,
  run(_args, ctx) {
    ctx.session.resetHistory();
    ctx.clearInterrupted();
    return { reply: "Conversation history cleared." };
  },
};
