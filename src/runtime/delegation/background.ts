import { randomBytes } from "node:crypto";
import type { UserContentPart } from "../../llm/types.js";
import type { DelegateChildResult, DelegateTaskSpec, DelegationRecord } from "../../tools/ports.js";

/** Finished background delegations kept for status queries (Hermes' `_MAX_RETAINED_COMPLETED`). */
const RETAINED_FINISHED = 50;

interface Entry {
  record: DelegationRecord;
  task: DelegateTaskSpec;
  controller: AbortController;
  done: Promise<void>;
  /** Its result reached the model (a status query, or the next user message). */
  delivered: boolean;
}

/**
 * One session's background delegations (Hermes' async delegation registry, per session): running
 * ones can be cancelled together; finished ones wait to be delivered once, with the next user
 * message or a status query, whichever comes first. No method throws.
 */
export class BackgroundDelegations {
  private readonly entries = new Map<string, Entry>();

  /** How many are still running. */
  running(): number {
    return [...this.entries.values()].filter((entry) => entry.record.status === "running").length;
  }

  /** Registers a delegation and starts it with `start` (given its signal); answers its id. `onFinish` (must not throw) hears its end. */
  start(task: DelegateTaskSpec, start: (signal: AbortSignal) => Promise<DelegateChildResult>, onFinish?: (record: DelegationRecord) => void): string {
    const delegationId = `deleg_${randomBytes(4).toString("hex")}`;
    const controller = new AbortController();
    const record: DelegationRecord = { delegationId, goal: task.goal, status: "running", dispatchedAt: Date.now() };
    const entry: Entry = { record, task, controller, delivered: false, done: Promise.resolve() };
    entry.done = start(controller.signal).then((result) => {
      record.status = result.status;
      record.result = result;
      record.completedAt = Date.now();
      this.prune();
      onFinish?.(record);
    });
    this.entries.set(delegationId, entry);
    return delegationId;
  }

  /** The delegation's record; one with a result counts as delivered from now on. */
  status(delegationId: string): DelegationRecord | undefined {
    const entry = this.entries.get(delegationId);
    if (entry?.record.result) entry.delivered = true;
    return entry?.record;
  }

  /** The finished, undelivered ones as one block for the model (they count as delivered), or undefined. */
  takeFinished(): { ids: string[]; text: string } | undefined {
    const ready = [...this.entries.values()].filter((entry) => entry.record.result && !entry.delivered);
    if (ready.length === 0) return undefined;
    for (const entry of ready) entry.delivered = true;
    return { ids: ready.map((entry) => entry.record.delegationId), text: ready.map(completionBlock).join("\n\n") };
  }

  /** Stops every running one (they finish as `interrupted` and are delivered like any other). */
  cancel(): void {
    for (const entry of this.entries.values()) if (entry.record.status === "running") entry.controller.abort();
  }

  /** Resolves once none is running. Never rejects. */
  async settled(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.done));
  }

  private prune(): void {
    const finished = [...this.entries.values()].filter((entry) => entry.record.status !== "running" && entry.delivered);
    for (const entry of finished.slice(0, Math.max(0, finished.length - RETAINED_FINISHED))) this.entries.delete(entry.record.delegationId);
  }
}

/**
 * A finished background delegation as the model reads it (Hermes' `[ASYNC DELEGATION COMPLETE]`
 * block): self-contained, since the model may have moved on — the goal, the context it gave, how
 * it ended and the summary, marked as a self-report. Pure.
 */
export function completionBlock(entry: { record: DelegationRecord; task: DelegateTaskSpec }): string {
  const { record, task } = entry;
  const result = record.result;
  const lines = [
    `[ASYNC DELEGATION COMPLETE — ${record.delegationId}]`,
    "A background subagent you dispatched earlier has finished. You may have moved on since dispatching it; the full task source is below so you can act on the result or re-dispatch if things have changed.",
    "NOTE: the subagent finishing and producing output is NOT task acceptance. Its summary is a self-report: verify the returned handles/evidence yourself before relying on this result.",
    "",
    `Dispatched: ${new Date(record.dispatchedAt).toISOString()}`,
    `Original goal: ${task.goal}`,
  ];
  if (task.context) lines.push(`Context you provided: ${task.context}`);
  if (task.toolsets?.length) lines.push(`Toolsets: ${task.toolsets.join(", ")}`);
  if (result) {
    lines.push(`Role: ${result.role}   Model: ${result.agent ?? result.model ?? "?"}`);
    lines.push(`Status: ${result.status}   API calls: ${result.apiCalls}   Duration: ${result.durationSeconds}s${result.exitReason === "max_iterations" ? " [TRUNCATED: hit max_iterations — work may be incomplete]" : ""}`);
    if (result.filesChanged.length) lines.push(`Files changed: ${result.filesChanged.join(", ")}`);
    lines.push("--- RESULT ---");
    if (result.error) lines.push(`The subagent did not complete successfully: ${result.error}`);
    lines.push(result.summary ?? "(no summary)");
  }
  lines.push(`[END ASYNC DELEGATION — ${record.delegationId}]`);
  return lines.join("\n");
}

/** `content` with `block` before it, as one user message (the block first, then what the user wrote). Pure. */
export function withDelivered(content: string | UserContentPart[], block: string): string | UserContentPart[] {
  if (typeof content === "string") return `${block}\n\n${content}`;
  return [{ type: "text", text: `${block}\n\n` }, ...content];
}
