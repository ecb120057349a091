/**
 * What a delegated child is told: Hermes' focused subagent prompt (`_build_child_system_prompt`)
 * from the goal and context, with the workspace path, the orchestrator block when it may delegate
 * further, and how its approvals work here. Pure.
 */

export interface ChildPromptInput {
  goal: string;
  context?: string;
  /** The parent's working directory (Hermes' WORKSPACE PATH). */
  workspace: string;
  role: "leaf" | "orchestrator";
  /** The child's own depth (1 for a child of the user's session). */
  childDepth: number;
  maxSpawnDepth: number;
  /** `delegation.subagent_auto_approve`: whether its dangerous commands run without asking. */
  autoApprove: boolean;
}

/** The task part, shared by native children (their system prompt) and ACP children (their one prompt). */
export function childTaskText(input: Pick<ChildPromptInput, "goal" | "context" | "workspace">): string {
  const parts = ["You are a focused subagent working on a specific delegated task.", "", `YOUR TASK:\n${input.goal}`];
  if (input.context?.trim()) parts.push(`\nCONTEXT:\n${input.context}`);
  parts.push(`\nWORKSPACE PATH:\n${input.workspace}\nUse this exact path for local repository/workdir operations unless the task explicitly says otherwise.`);
  parts.push(
    "\nComplete this task using the tools available to you. When finished, provide a clear, concise summary of:\n" +
      "- What you did\n- What you found or accomplished\n- Any files you created or modified\n- Any issues encountered\n\n" +
      "Important workspace rule: Never assume a repository lives at /workspace/... or any other container-style path unless the task/context explicitly gives that path. " +
      "If no exact local path is provided, discover it first before issuing git/workdir-specific commands.\n\n" +
      "Be thorough but concise -- your response is returned to the parent agent as a summary.",
  );
  return parts.join("\n");
}

/** A native child's whole system prompt. */
export function childSystemPrompt(input: ChildPromptInput): string {
  const parts = [childTaskText(input)];
  parts.push(
    "\n## Approvals\n" +
      "You cannot ask the user anything. " +
      (input.autoApprove
        ? "Commands the safety check flags as dangerous run without asking (delegation.subagent_auto_approve is on); still avoid destructive commands the task does not need. "
        : "Commands the safety check flags as dangerous are DENIED automatically (delegation.subagent_auto_approve is off): find a safer way, or report in your summary what the parent should run. ") +
      "File edits may need the user's approval in the editor; a denied edit leaves the file untouched, so say so in your summary.",
  );
  if (input.role === "orchestrator") {
    const childNote =
      input.childDepth + 1 >= input.maxSpawnDepth
        ? "Your own children MUST be leaves (cannot delegate further) because they would be at the depth floor — you cannot pass role='orchestrator' to your own delegate_task calls."
        : "Your own children can themselves be orchestrators or leaves, depending on the `role` you pass to delegate_task. Default is 'leaf'; pass role='orchestrator' explicitly when a child needs to further decompose its work.";
    parts.push(
      "\n## Subagent Spawning (Orchestrator Role)\n" +
        "You have access to the `delegate_task` tool and CAN spawn your own subagents to parallelize independent work.\n\n" +
        "WHEN to delegate:\n- The goal decomposes into 2+ independent subtasks that can run in parallel (e.g. research A and B simultaneously).\n" +
        "- A subtask is reasoning-heavy and would flood your context with intermediate data.\n\n" +
        "WHEN NOT to delegate:\n- Single-step mechanical work — do it directly.\n- Trivial tasks you can execute in one or two tool calls.\n" +
        "- Re-delegating your entire assigned goal to one worker (that's just pass-through with no value added).\n\n" +
        "Coordinate your workers' results and synthesize them before reporting back to your parent. You are responsible for the final summary, not your workers.\n\n" +
        `NOTE: You are at depth ${input.childDepth}. The delegation tree is capped at max_spawn_depth=${input.maxSpawnDepth}. ${childNote}`,
    );
  }
  return parts.join("\n");
}
