import type { ProcessInfo } from "../../tools/process/details.js";
import { fenced, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

function exitNote(info: ProcessInfo | undefined): string {
  if (typeof info?.exit_code === "number") return `, exit ${info.exit_code}`;
  if (info?.signal) return `, ${info.signal}`;
  return "";
}

/** `process` calls: the action at start; a process table, or a status line and output, at the end. */
export const processRenderer: ToolRenderer<"process"> = {
  start(event) {
    const input = event.input;
    const lines = [`Process action: ${input?.action ?? "manage"}`];
    if (input?.session_id !== undefined) lines.push(`Session: ${input.session_id}`);
    if (input?.data !== undefined) lines.push(`Input: ${input.data.slice(0, 500)}`);
    return [textContent(lines.join("\n"))];
  },
  complete(event) {
    const details = event.details;
    if (event.isError || !details) return { content: [textContent(truncate(event.content, DISPLAY_LIMIT_LARGE))] };
    const lines: string[] = [];
    if ("processes" in details) {
      lines.push(`Processes: ${details.processes.length}`);
      for (const row of details.processes.slice(0, 20)) {
        lines.push(`- \`${row.session_id}\` — ${row.status}, pid ${row.pid}${exitNote(row)} — ${row.command.slice(0, 120)}`);
      }
    } else {
      const info = details.process;
      lines.push(`Process ${details.action}: ${info?.status ?? ""}${info?.session_id ? ` (\`${info.session_id}\`)` : ""}${exitNote(info)}`);
      if (info) lines.push(`Command: ${info.command.slice(0, 200)}`);
      if ("output" in details && details.output) lines.push(fenced(truncate(details.output, 5000)));
    }
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};
