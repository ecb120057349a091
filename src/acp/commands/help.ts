import type { SlashCommand } from "./types.js";

/** `/help`: every command with its help line; unknown `/words` go to the model. */
export const helpCommand: SlashCommand = {
  name: "help",
  description: "List available commands",
  help: "Show available commands",
  run(_args, ctx) {
    const lines = ctx.commands.map((command) => `  /${command.name.padEnd(10)}  ${command.help ?? command.description}`);
    return { reply: ["Available commands:", ...lines, "", "Unrecognized /commands are sent to the model as normal messages."].join("\n") };
  },
};
