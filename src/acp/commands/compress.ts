import type { SlashCommand } from "./types.js";

/** `/compress`: forced compression of what the model sees; reports `A -> B messages, ~X -> ~Y tokens`. */
export const compressCommand: SlashCommand = {
  name: "compress",
  description: "Compress conversation context",
  exclusive: () => true,
  async run(_args, ctx) {
    const { session } = ctx;
    if (session.history.length === 0) return { reply: "Nothing to compress — conversation is empty." };
    const report = await session.compress(ctx.signal);
    return { reply: report.compressed ? `Context compressed: ${report.text}` : report.text };
  },
};
