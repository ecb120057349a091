import type { SlashCommand } from "./types.js";

const MAX_DESCRIPTION = 80;

/** The first line of a tool description, whitespace collapsed, cut to 80 characters ("..." included). */
export function shortDescription(description: string): string {
  const first = description.trim().split("\n")[0]?.replace(/\s+/g, " ") ?? "";
  return first.length > MAX_DESCRIPTION ? `${first.slice(0, MAX_DESCRIPTION - 3)}...` : first;
}

/** `/tools`: the session's tools (MCP tools included once they join the registry), one line each. */
export const toolsCommand: SlashCommand = {
  name: "tools",
  description: "List available tools with descriptions",
  help: "List available tools",
  run(_args, ctx) {
    const tools = ctx.session.tools.list();
    if (tools.length === 0) return { reply: "No tools available." };
    const lines = tools.map((tool) => `  ${tool.name}: ${shortDescription(tool.description)}`);
    return { reply: [`Available tools (${tools.length}):`, ...lines].join("\n") };
  },
};
