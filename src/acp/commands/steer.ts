import type { SlashCommand } from "./types.js";

const PREVIEW = 80;

/**
 * `/steer <guidance>`: during a turn, the guidance reaches the model after the current tool
 * batch; on an idle session it runs as a normal prompt (carrying a cancelled prompt, if any).
 */
export const steerCommand: SlashCommand = {
  name: "steer",
  description: "Inject guidance into the currently running agent turn",
  hint: "guidance for the active turn",
  run(args, ctx) {
    if (!args) return { reply: "Usage: /steer <guidance>" };
    if (!ctx.turnActive) return { prompt: args };
    ctx.steer(args);
    const preview = args.length > PREVIEW ? `${args.slice(0, PREVIEW - 3)}...` : args;
    return { reply: `⏩ Steer queued for the active turn: ${preview}` };
  },
};
