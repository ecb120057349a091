import { fenced, isRecord, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

/** `process` calls: the action at start; a status line and any output at the end. */
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
        lines.push(`- \`${String(row.id)}\` — ${String(row.status)}, pid ${String(row.pid)}${row.exitCode !== undefined && row.exitCode !== null ? `, exit ${String(row.exitCode)}` : ""} — ${String(row.command ?? "").slice(0, 120)}`);
      }
    } else {
      lines.push(`Process ${String(details.action ?? "")}: ${String(details.status ?? "")}${details.id ? ` (\`${String(details.id)}\`)` : ""}`);
      if (details.exitCode !== undefined && details.exitCode !== null) lines.push(`Exit code: ${String(details.exitCode)}`);
      if (typeof details.output === "string" && details.output) lines.push(fenced(truncate(details.output, 5000)));
    }
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};
