import { z } from "zod";

const role = z.enum(["leaf", "orchestrator"]);
const toolsets = z.array(z.string().min(1));

const taskSchema = z.object({
  goal: z.string().describe("Task goal"),
  context: z.string().optional().describe("Task-specific context"),
  toolsets: toolsets.optional().describe("Toolsets for this task"),
  role: role.optional().describe("Per-task role"),
  acp_command: z.string().min(1).optional().describe("Per-task ACP command"),
  acp_args: z.array(z.string()).optional().describe("Per-task ACP args"),
  agent: z.string().min(1).optional().describe("Per-task ACP agent name"),
});

/**
 * `delegate_task`'s parameters, as Hermes has them, plus `agent` (a configured external ACP agent)
 * and `delegation_id` (a status query for a background delegation). Hermes' hidden
 * `max_iterations` is not declared: the config value is authoritative (Hermes ignores a
 * model-supplied one), so it is dropped like any unknown key.
 */
export const delegateTaskParams = z.object({
  goal: z.string().optional().describe("What the subagent should accomplish. Specific and self-contained: it knows nothing of your conversation."),
  context: z.string().optional().describe("Background it needs: file paths, error messages, constraints."),
  toolsets: toolsets.optional().describe("Toolsets for it (default: yours), e.g. ['terminal', 'file'] for code work, ['web'] for research."),
  tasks: z.array(taskSchema).optional().describe("Batch: tasks run in parallel (up to delegation.max_concurrent_children, default 3); top-level goal/context/toolsets are then ignored."),
  role: role.optional().describe("'leaf' (default): cannot delegate. 'orchestrator': may use delegate_task itself, within delegation.max_spawn_depth (else runs as a leaf)."),
  background: z.boolean().optional().describe("Single task only: run it in the background; returns a delegation_id at once."),
  acp_command: z.string().min(1).optional().describe("Run with an external ACP agent started by this command (the user is asked first). Only if the user said it is installed; prefer 'agent'."),
  acp_args: z.array(z.string()).optional().describe("Arguments for acp_command."),
  agent: z.string().min(1).optional().describe("Run with an external ACP agent from delegation.acp_agents, by name."),
  delegation_id: z.string().min(1).optional().describe("Status query for a background delegation (nothing else needed)."),
});

export type DelegateTaskArgs = z.infer<typeof delegateTaskParams>;
export type DelegateTaskInput = z.infer<typeof taskSchema>;
