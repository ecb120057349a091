import type { SlashCommand } from "./types.js";

const MAX_DESCRIPTION = 80;

/** The first line of a tool description, whitespace collapsed, cut to 80 characters ("..." included). */
export function shortDescription(description: string): string {
  const first = description.trim().split("\n")[0]?.replace(/\s+/g, " ") ?? "";
  return first.length > MAX_DESCRIPTION ? `${first.slice(0, MAX_DESCRIPTION - 3)}...` : first;
}

/**
 * `/tools`: the session's tools (MCP tools included once they join the registry), one line each;
 * then the tools its toolsets name that are not offered, with why, and unknown toolset names.
 */
export const toolsCommand: SlashCommand = {
  name: "tools",
  description: "List available tools with descriptions",
  help: "List available tools",
  run(_args, ctx) {
    const tools = ctx.session.tools.list();
    const lines = tools.length === 0 ? ["No tools available."] : [`Available tools (${tools.length}):`, ...tools.map((tool) => `  ${tool.name}: ${shortDescription(tool.description)}`)];
    const toolset = ctx.session.toolset;
    if (toolset?.unavailable.length) {
      lines.push("", "Not available here:", ...toolset.unavailable.map((entry) => `  ${entry.tool}: ${entry.reason}`));
    }
    if (toolset?.unknown.length) lines.push("", `Unknown toolsets in config.yaml (ignored): ${toolset.unknown.join(", ")}`);
    return { reply: lines.join("\n") };
  },
};
