import type { DelegateChildResult, DelegationRecord } from "../ports.js";
import type { DelegateResultRow } from "./details.js";

/** Told with every batch of results (Hermes' warning, in the result itself too). */
export const SELF_REPORT_NOTE =
  "Summaries are the subagents' SELF-REPORTS, not verified facts: check what matters (read the files in files_changed, run the tests) before relying on them or telling the user.";

/** One child's entry in the model's `results` array (Hermes' keys, plus files_changed and session_id). Pure. */
export function resultEntry(result: DelegateChildResult): Record<string, unknown> {
  return {
    task_index: result.taskIndex,
    status: result.status,
    summary: result.summary,
    ...(result.error ? { error: result.error } : {}),
    api_calls: result.apiCalls,
    duration_seconds: result.durationSeconds,
    ...(result.model ? { model: result.model } : {}),
    ...(result.agent ? { agent: result.agent } : {}),
    role: result.role,
    exit_reason: result.exitReason,
    files_changed: result.filesChanged,
    tool_trace: result.toolTrace.map((entry) => ({ tool: entry.tool, status: entry.ok ? "ok" : "error" })),
    ...(result.sessionId ? { session_id: result.sessionId } : {}),
  };
}

/** The model's answer to a foreground call: `{results, total_duration_seconds, note}`. Pure. */
export function resultsContent(results: readonly DelegateChildResult[], totalSeconds: number): string {
  return JSON.stringify({ results: results.map(resultEntry), total_duration_seconds: totalSeconds, note: SELF_REPORT_NOTE });
}

/** The editor's row for one child. Pure. */
export function resultRow(result: DelegateChildResult): DelegateResultRow {
  return {
    taskIndex: result.taskIndex,
    goal: result.goal,
    status: result.status,
    summary: result.summary,
    ...(result.error ? { error: result.error } : {}),
    role: result.role,
    durationSeconds: result.durationSeconds,
    apiCalls: result.apiCalls,
    ...(result.model ? { model: result.model } : {}),
    ...(result.agent ? { agent: result.agent } : {}),
    filesChanged: result.filesChanged,
    tools: result.toolTrace.map((entry) => entry.tool),
    ...(result.sessionId ? { sessionId: result.sessionId } : {}),
  };
}

/** The model's answer to a status query (`delegate_task(delegation_id=…)`). Pure. */
export function statusContent(record: DelegationRecord): string {
  const base = {
    delegation_id: record.delegationId,
    goal: record.goal,
    status: record.status,
    dispatched_at: new Date(record.dispatchedAt).toISOString(),
    ...(record.completedAt !== undefined ? { completed_at: new Date(record.completedAt).toISOString() } : {}),
  };
  if (!record.result) {
    return JSON.stringify({ ...base, note: "Still running. Its result re-enters the conversation with the user's next message after it finishes; do not poll or wait, just continue." });
  }
  return JSON.stringify({ ...base, result: resultEntry(record.result), note: SELF_REPORT_NOTE });
}

/** Seconds, rounded to hundredths (Hermes' `round(x, 2)`). */
export function roundSeconds(ms: number): number {
  return Math.round(ms / 10) / 100;
}
