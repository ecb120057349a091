import { defineTool, type DescribeContext, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import type { DelegateDetails, DelegateProgress } from "./details.js";
import { delegateTaskParams, type DelegateTaskArgs } from "./params.js";
import { ProgressFeed } from "./progress-feed.js";
import { resultRow, resultsContent, roundSeconds, statusContent } from "./results.js";
import { delegateTasks } from "./tasks.js";

export type { DelegateTaskArgs } from "./params.js";

const DESCRIPTION = [
  "Spawn subagents that work in isolated contexts (own conversation, terminal session and toolset); only each final",
  "summary comes back, never their tool results. 'goal' for one task, or 'tasks' for a parallel batch (up to",
  "delegation.max_concurrent_children, default 3). Use for reasoning-heavy subtasks, work that would flood your context,",
  "independent parallel work; not for a single tool call or anything needing the user (subagents cannot ask).",
  "\n- Subagents know NOTHING of your conversation: pass all they need (paths, errors, constraints, answer language) in goal/context.",
  "\n- Summaries are SELF-REPORTS: verify claims (read files_changed, run the tests) before relying on them.",
  "\n- Leaves (role 'leaf', default) cannot use delegate_task, clarify, memory or execute_code; orchestrators may delegate",
  "within delegation.max_spawn_depth (default 1: no nesting).",
  "\n- Their dangerous commands are denied unless delegation.subagent_auto_approve is set; their edits may ask the user.",
  "\n- background=true returns a delegation_id at once; the result arrives with the user's next message. Do not poll.",
  "\n- Results are an array, one entry per task.",
].join(" ");

/** Hermes' titles: `delegate batch (N tasks)`, `delegate: <goal ≤60>`, or `delegate task`; a status query names its id. */
function describeDelegate(args: DelegateTaskArgs, _ctx: DescribeContext): ToolDescription {
  if (args.delegation_id) return { title: `delegate status: ${args.delegation_id}`, locations: [] };
  const count = args.tasks?.length ?? 0;
  if (count > 1) return { title: `delegate batch (${count} tasks)`, locations: [] };
  const goal = (args.tasks?.[0]?.goal ?? args.goal ?? "").replace(/\s+/g, " ").trim();
  if (!goal) return { title: "delegate task", locations: [] };
  return { title: `delegate: ${goal.length > 60 ? `${goal.slice(0, 57)}...` : goal}`, locations: [] };
}

/**
 * delegate_task, as Hermes has it: children run through `ctx.ports.delegate` (the runtime), each a
 * fresh agent with a focused prompt and a restricted toolset; the call waits for all of them (or,
 * with `background`, answers a delegation id at once) and returns their summaries as a results
 * array. Refusals (limits, bad tasks, no port) are `isError` results; nothing here throws. A
 * cancel reaches the children through `ctx.signal`; their progress is reported a few times a
 * second as `[child N] <what it does>` lines.
 */
export const delegateTaskTool = defineTool({
  name: "delegate_task",
  description: DESCRIPTION,
  kind: "execute",
  mutating: true,
  params: delegateTaskParams,
  describe: describeDelegate,
  execute: delegateExecute,
});

async function delegateExecute(args: DelegateTaskArgs, ctx: ToolContext<DelegateProgress>): Promise<ToolResult<DelegateDetails>> {
  const port = ctx.ports.delegate;
  if (!port) return refusal("delegate_task is not available here: this session cannot run subagents.");
  if (args.delegation_id) {
    const record = port.status(args.delegation_id);
    if (!record) return refusal(`No background delegation '${args.delegation_id}' in this session.`);
    return {
      content: statusContent(record),
      details: { mode: "status", delegationId: record.delegationId, goal: record.goal, status: record.status, ...(record.result ? { result: resultRow(record.result) } : {}) },
    };
  }
  const checked = delegateTasks(args, ctx.config.delegation, port.depth);
  if ("error" in checked) return refusal(checked.error);
  const { tasks } = checked;
  if (args.background && tasks[0]) {
    const dispatched = port.dispatch(tasks[0], { callId: ctx.callId, inherit: ctx.ports });
    if ("error" in dispatched) return refusal(dispatched.error);
    const goal = tasks[0].goal;
    return {
      content: JSON.stringify({
        status: "dispatched",
        delegation_id: dispatched.delegationId,
        goal,
        mode: "background",
        note: "Subagent is running in the background. You and the user can keep working; the full task source and result will re-enter the conversation as a new message when it finishes. Do not wait or poll — just continue.",
      }),
      details: { mode: "dispatched", delegationId: dispatched.delegationId, goal, status: "running" },
    };
  }
  const started = performance.now();
  const feed = new ProgressFeed((progress) => ctx.reportProgress?.(progress));
  try {
    const results = await port.run(tasks, {
      callId: ctx.callId,
      signal: ctx.signal,
      inherit: ctx.ports,
      onProgress: (taskIndex, line) => feed.push(`[child ${taskIndex + 1}] ${line}`),
    });
    const total = roundSeconds(performance.now() - started);
    return { content: resultsContent(results, total), details: { mode: "run", results: results.map(resultRow), totalDurationSeconds: total } };
  } finally {
    feed.stop();
  }
}

function refusal(error: string): ToolResult<DelegateDetails> {
  return { content: JSON.stringify({ error }), details: { error }, isError: true };
}
