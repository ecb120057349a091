import type { HermesConfig } from "../../config/schema.js";
import { delegateTaskTool } from "../../tools/delegate/delegate-task.js";
import { resolveToolset } from "../../tools/toolsets.js";
import type { AnyTool } from "../../tools/types.js";

/** Tools no child ever gets (Hermes' DELEGATE_BLOCKED_TOOLS; `send_message` does not exist here). */
export const CHILD_BLOCKED_TOOLS: ReadonlySet<string> = new Set(["delegate_task", "clarify", "memory", "execute_code"]);

const MCP_PREFIX = "mcp__";

/**
 * A child's tools, in the parent's order (Hermes' `_build_child_agent`): the parent's tools, or,
 * when the task names toolsets, those toolsets' tools the parent also has (a child never gains a
 * tool its parent lacks) plus the parent's MCP tools; never a blocked tool. An orchestrator gets
 * `delegate_task` back (granted by role, whatever the parent has). Unknown toolset names add
 * nothing. Pure but for the availability checks `resolveToolset` makes.
 */
export function childTools(parent: readonly AnyTool[], options: { toolsets?: readonly string[]; role: "leaf" | "orchestrator"; config: HermesConfig; env: NodeJS.ProcessEnv }): AnyTool[] {
  let allowed: (tool: AnyTool) => boolean = () => true;
  if (options.toolsets?.length) {
    const asked = resolveToolset({ ...options.config, platform_toolsets: { acp: [...options.toolsets] }, agent: { ...options.config.agent, disabled_toolsets: [] } }, options.env);
    const names = new Set(asked.tools.map((tool) => tool.name));
    allowed = (tool) => names.has(tool.name) || tool.name.startsWith(MCP_PREFIX);
  }
  const tools = parent.filter((tool) => !CHILD_BLOCKED_TOOLS.has(tool.name) && allowed(tool));
  return options.role === "orchestrator" ? [...tools, delegateTaskTool] : tools;
}
