import { z } from "zod";

const role = z.lazy(() => z.enum(["leaf", "orchestrator"]));
const toolsets = z.lazy(() => z.array(z.string().min(1)));

/** A batch task takes the top-level fields (their descriptions there; repeating them would cost every request). */
const taskSchema = z.lazy(() => z.object({
  goal: z.string(),
  context: z.string().optional(),
  toolsets: toolsets.optional(),
  role: role.optional(),
  acp_command: z.string().min(1).optional(),
  acp_args: z.array(z.string()).optional(),
  agent: z.string().min(1).optional(),
}));

/**
 * `delegate_task`'s parameters, as Hermes has them, plus `agent` (a configured external ACP agent)
 * and `delegation_id` (a status query for a background delegation). Hermes' hidden
 * `max_iterations` is not declared: the config value is authoritative (Hermes ignores a
 * model-supplied one), so it is dropped like any unknown key.
 */
export const delegateTaskParams = z.lazy(() => z.object({
  goal: z.string().optional().describe("What the subagent should do: specific and self-contained."),
  context: z.string().optional().describe("What it needs to know: file paths, error messages, constraints."),
  toolsets: toolsets.optional().describe("Its toolsets (default: yours), e.g. ['terminal', 'file'] for code, ['web'] for research."),
  tasks: z.array(taskSchema).optional().describe("Parallel batch, each task with the fields above (goal required); top-level goal/context/toolsets are then ignored."),
  role: role.optional().describe("'leaf' (default) cannot delegate; 'orchestrator' may, within delegation.max_spawn_depth (else runs as a leaf)."),
  background: z.boolean().optional().describe("Single task: run in the background, returning a delegation_id at once."),
  acp_command: z.string().min(1).optional().describe("Run it with an external ACP agent started by this command (the user is asked first); only if the user said it is installed. Prefer 'agent'."),
  acp_args: z.array(z.string()).optional().describe("Arguments for acp_command."),
  agent: z.string().min(1).optional().describe("Run it with an external ACP agent of delegation.acp_agents, by name."),
  delegation_id: z.string().min(1).optional().describe("Status of a background delegation (nothing else needed)."),
}));

export type DelegateTaskArgs = z.infer<typeof delegateTaskParams>;
export type DelegateTaskInput = z.infer<typeof taskSchema>;
