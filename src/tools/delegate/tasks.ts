import type { HermesConfig } from "../../config/schema.js";
import type { DelegateTaskSpec } from "../ports.js";
import type { DelegateTaskArgs, DelegateTaskInput } from "./params.js";

/** The delegation limits a call is checked against (from config.yaml's `delegation:`). */
export type DelegationLimits = Pick<HermesConfig["delegation"], "max_concurrent_children" | "max_spawn_depth" | "acp_agents">;

/**
 * The call's tasks (a batch, or the single top-level goal) with Hermes' defaults applied — per-task
 * role, toolsets and ACP agent beat the top-level ones — or the refusal the model is told, in
 * Hermes' words where Hermes has them. Checks, in order: the depth limit (`depth` is the asking
 * session's), background batches, the batch size against `max_concurrent_children`, missing goals,
 * unknown `agent` names. Pure.
 */
export function delegateTasks(args: DelegateTaskArgs, limits: DelegationLimits, depth: number): { tasks: DelegateTaskSpec[] } | { error: string } {
  if (depth >= limits.max_spawn_depth) {
    return {
      error:
        `Delegation depth limit reached (depth=${depth}, max_spawn_depth=${limits.max_spawn_depth}). Raise ` +
        "delegation.max_spawn_depth in config.yaml if deeper nesting is required (no hard ceiling, but each level multiplies API cost).",
    };
  }
  const batch = args.tasks;
  if (args.background && batch && batch.length > 1) {
    return {
      error:
        "background=true is single-task only. Dispatch one background subagent per delegate_task call (each returns its own " +
        "handle and re-enters the conversation independently), or run the batch synchronously with background=false.",
    };
  }
  const max = limits.max_concurrent_children;
  if (batch && batch.length > max) {
    return {
      error:
        `Too many tasks: ${batch.length} provided, but max_concurrent_children is ${max}. Either reduce the task count, split ` +
        "into multiple delegate_task calls, or increase delegation.max_concurrent_children in config.yaml.",
    };
  }
  const single: DelegateTaskInput | undefined = args.goal?.trim() ? { goal: args.goal, ...(args.context !== undefined ? { context: args.context } : {}) } : undefined;
  const inputs = batch?.length ? batch : single ? [single] : undefined;
  if (!inputs) return { error: batch ? "No tasks provided." : "Provide either 'goal' (single task) or 'tasks' (batch)." };
  const tasks: DelegateTaskSpec[] = [];
  for (const [index, input] of inputs.entries()) {
    if (!input.goal.trim()) return { error: `Task ${index} is missing a 'goal'.` };
    const role = (input.role ?? args.role) === "orchestrator" ? "orchestrator" : "leaf";
    const toolsets = input.toolsets ?? args.toolsets;
    const agent = input.agent ?? args.agent;
    const command = input.acp_command ?? args.acp_command;
    if (agent !== undefined && !Object.hasOwn(limits.acp_agents, agent)) {
      const known = Object.keys(limits.acp_agents);
      return { error: `Task ${index}: no ACP agent named '${agent}' in delegation.acp_agents (${known.length ? `configured: ${known.join(", ")}` : "none is configured"}).` };
    }
    tasks.push({
      goal: input.goal,
      ...(input.context?.trim() ? { context: input.context } : {}),
      ...(toolsets?.length ? { toolsets } : {}),
      role,
      ...(agent !== undefined ? { acp: { agent } } : command !== undefined ? { acp: { command, args: input.acp_args ?? args.acp_args ?? [] } } : {}),
    });
  }
  return { tasks };
}
