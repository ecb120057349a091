import { fenced, isRecord, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

function exitNote(info: Record<string, unknown>): string {
  if (typeof info.exit_code === "number") return `, exit ${info.exit_code}`;
  if (typeof info.signal === "string" && info.signal) return `, ${info.signal}`;
  return "";
}

/** `process` calls: the action at start; a process table, or a status line and output, at the end. */
export const processRenderer: ToolRenderer = {
  start(event) {
    const args = isRecord(event.args) ? event.args : {};
    const lines = [`Process action: ${String(args.action ?? "manage")}`];
    if (typeof args.session_id === "string") lines.push(`Session: ${args.session_id}`);
    if (typeof args.data === "string") lines.push(`Input: ${args.data.slice(0, 500)}`);
    return [textContent(lines.join("\n"))];
  },
  complete(event) {
    const details = event.details;
    if (event.isError || !isRecord(details)) return { content: [textContent(truncate(event.content, DISPLAY_LIMIT_LARGE))] };
    const lines: string[] = [];
    if (Array.isArray(details.processes)) {
      lines.push(`Processes: ${details.processes.length}`);
      for (const row of details.processes.slice(0, 20)) {
        if (!isRecord(row)) continue;
        lines.push(`- \`${String(row.session_id)}\` — ${String(row.status)}, pid ${String(row.pid)}${exitNote(row)} — ${String(row.command ?? "").slice(0, 120)}`);
      }
    } else {
      const info = isRecord(details.process) ? details.process : {};
      lines.push(`Process ${String(details.action ?? "")}: ${String(info.status ?? "")}${info.session_id ? ` (\`${String(info.session_id)}\`)` : ""}${exitNote(info)}`);
      if (typeof info.command === "string") lines.push(`Command: ${info.command.slice(0, 200)}`);
      if (typeof details.output === "string" && details.output) lines.push(fenced(truncate(details.output, 5000)));
    }
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};
