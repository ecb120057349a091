import type { DelegateResultRow } from "../../tools/delegate/details.js";
import type { DelegateTaskInput } from "../../tools/delegate/params.js";
import { errorText, textContent, truncate } from "./text.js";
import type { ProgressRenderer, ToolRenderer } from "./types.js";

/** Hermes' display limits for delegation results. */
const RESULT_LIMIT = 8000;
const SUMMARY_CHARS = 1200;
const ERROR_CHARS = 800;
const TOOLS_SHOWN = 12;
const TASKS_SHOWN = 8;

const ICONS: Record<DelegateResultRow["status"], string> = { completed: "✅", failed: "✗", error: "✗", interrupted: "⚠" };

/**
 * `delegate_task` in the editor (Hermes' rendering). Start: `Delegating task:\n<goal>` or
 * `Delegating N tasks` with one numbered line per task (role named). While it runs: the children's
 * latest `[child N] …` lines. Completion: `Delegation results: N task(s) in Ts`, then per task
 * `<icon> Task i: status (model, role=…, Ns)`, its summary (≤1,200 chars; a self-report), error,
 * files changed and tools (12 at most); 8,000 chars in all. Failed when no child completed. A
 * background dispatch and a status query say so with the delegation id.
 */
export const delegateRenderer: ToolRenderer<"delegate_task"> = {
  start(event) {
    const input = event.input;
    if (!input) return [];
    if (input.delegation_id) return [textContent(`Checking background delegation ${input.delegation_id}`)];
    const tasks: DelegateTaskInput[] = input.tasks?.length ? input.tasks : input.goal ? [{ goal: input.goal }] : [];
    if (tasks.length === 1 && tasks[0]) return [textContent(`${input.background ? "Delegating task (background)" : "Delegating task"}:\n${clip(tasks[0].goal, 800)}`)];
    const lines = [`Delegating ${tasks.length} tasks`, ""];
    tasks.slice(0, TASKS_SHOWN).forEach((task, index) => lines.push(`${index + 1}. ${clip(oneLine(task.goal), 160)} (${task.role ?? input.role ?? "leaf"})`));
    if (tasks.length > TASKS_SHOWN) lines.push(`… and ${tasks.length - TASKS_SHOWN} more`);
    return [textContent(lines.join("\n"))];
  },
  complete(event) {
    const details = event.details;
    if (!details) return { content: event.content ? [textContent(truncate(event.content))] : [] };
    if ("error" in details) return { content: [textContent(truncate(`Delegation refused: ${details.error ?? errorText(event.content)}`))], failed: true };
    if (details.mode === "dispatched") return { content: [textContent(`Running in the background as ${details.delegationId}: ${clip(oneLine(details.goal), 160)}\nIts result comes back with your next message.`)] };
    if (details.mode === "status") {
      const lines = [`Background delegation ${details.delegationId}: ${details.status}`];
      if (details.result) lines.push("", ...taskLines(details.result));
      return { content: [textContent(truncate(lines.join("\n"), RESULT_LIMIT))] };
    }
    const count = details.results.length;
    const lines = [`Delegation results: ${count} task${count === 1 ? "" : "s"} in ${details.totalDurationSeconds}s`];
    for (const row of details.results) lines.push("", ...taskLines(row));
    return { content: [textContent(truncate(lines.join("\n"), RESULT_LIMIT))], failed: count > 0 && details.results.every((row) => row.status !== "completed") };
  },
};

/** The children's latest lines as one text block (a note first when earlier ones were dropped). */
export const delegateProgress: ProgressRenderer<"delegate_task"> = (event) => {
  const { lines, dropped } = event.details;
  return [textContent([...(dropped > 0 ? [`… ${dropped} earlier line${dropped === 1 ? "" : "s"}`] : []), ...lines].join("\n"))];
};

function taskLines(row: DelegateResultRow): string[] {
  const facts = [row.agent ?? row.model, `role=${row.role}`, `${row.durationSeconds}s`].filter(Boolean).join(", ");
  const lines = [`${ICONS[row.status]} Task ${row.taskIndex + 1}: ${row.status} (${facts})`];
  if (row.summary) lines.push(clip(row.summary.trim(), SUMMARY_CHARS));
  if (row.error) lines.push(`Error: ${clip(row.error, ERROR_CHARS)}`);
  if (row.filesChanged.length) lines.push(`Files changed: ${row.filesChanged.join(", ")}`);
  if (row.tools.length) {
    const distinct = [...new Set(row.tools)];
    const more = distinct.length > TOOLS_SHOWN ? ` (+${distinct.length - TOOLS_SHOWN})` : "";
    lines.push(`Tools: ${distinct.slice(0, TOOLS_SHOWN).join(", ")}${more}`);
  }
  return lines;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
