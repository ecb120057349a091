import type { SlashCommand } from "./types.js";

/**
 * `/model`: shows the session's model and provider; `/model <provider:model>` (or a model on the
 * current provider) switches from the next turn, never during one.
 */
export const modelCommand: SlashCommand = {
  name: "model",
  description: "Show current model and provider, or switch models",
  help: "Show or change current model",
  hint: "model name to switch to",
  exclusive: (args) => args.length > 0,
  async run(args, ctx) {
    if (!args) return { reply: `Current model: ${ctx.session.model}\nProvider: ${ctx.session.providerId}` };
    const switched = await ctx.switchModel(args);
    return { reply: `Model switched to: ${switched.model}\nProvider: ${switched.provider}` };
  },
};
