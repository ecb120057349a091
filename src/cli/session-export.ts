/**
 * `hermes sessions export`: a stored session as a Markdown transcript, or as JSON with every
 * field. Pure functions over the store's types.
 */
import type { MessageRow, SessionRecord, StoredMessage } from "../runtime/session-directory.js";
import { contentText } from "../shared/content-text.js";

/** Tool results longer than this keep their head and tail with a note of what was left out. */
export const EXPORT_TOOL_RESULT_CHARS = 4000;
/** System messages are usually the whole system prompt; they are cut harder. */
const EXPORT_SYSTEM_CHARS = 2000;

/** A local date and time, `YYYY-MM-DD HH:MM`. */
export function formatLocalTime(ms: number): string {
  const date = new Date(ms);
  if (!Number.isFinite(date.getTime())) return "unknown";
  const pad = (value: number): string => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A code fence longer than any backtick run in `text`. */
export function fence(text: string, info = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const marks = "`".repeat(Math.max(3, longest + 1));
  return `${marks}${info}\n${text}\n${marks}`;
}

/** `text` when short; otherwise its first 3/4 and last 1/4 of `max` with the count left out between. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} of ${text.length} chars omitted] …\n${text.slice(text.length - tail)}`;
}

/** A stored session with its messages and its delegated children (`subagent` sessions), for export. */
export interface ExportedSession {
  session: SessionRecord;
  rows: readonly MessageRow[];
  subagents?: readonly ExportedSession[];
}

/**
 * The session as Markdown: a title, its facts (id, directory, model, source, times, counts), then
 * each message under a heading by role. Assistant tool calls are fenced JSON; tool results and
 * system messages are fenced and clipped (head and tail kept); user and assistant text is whole.
 * Its delegated children follow, each after a rule, titled `Subagent: …` (theirs in turn after them).
 */
export function sessionMarkdown(session: SessionRecord, rows: readonly MessageRow[], subagents: readonly ExportedSession[] = []): string {
  const facts: Array<[string, string | null]> = [
    ["ID", `\`${session.id}\``],
    ["Directory", session.cwd],
    ["Model", session.model ? `${session.model}${session.provider ? ` (${session.provider})` : ""}` : null],
    ["Source", session.origin === "hermes" ? `${session.source} (Python Hermes' history, read-only)` : session.source],
    ["Started", formatLocalTime(session.startedAt)],
    ["Last active", formatLocalTime(session.lastActiveAt)],
    ["Messages", String(rows.length)],
    ["Parent session", session.parentSessionId ? `\`${session.parentSessionId}\`` : null],
  ];
  const out = [`# ${session.title?.trim() || "Untitled session"}`, ""];
  for (const [label, value] of facts) if (value) out.push(`- **${label}:** ${value}`);
  for (const row of rows) out.push("", ...messageMarkdown(row.message));
  for (const child of subagents) {
    const text = sessionMarkdown(child.session, child.rows, child.subagents).trimEnd();
    out.push("", "---", "", text.replace(/^# /, "# Subagent: "));
  }
  return `${out.join("\n")}\n`;
}

function messageMarkdown(message: StoredMessage): string[] {
  switch (message.role) {
    case "system":
      return ["## System", "", fence(clip(message.content, EXPORT_SYSTEM_CHARS))];
    case "user": {
      const text = contentText(message.content, { separator: "\n\n" });
      return ["## User", "", text];
    }
    case "assistant": {
      const lines = ["## Assistant"];
      if (message.reasoning?.trim()) lines.push("", "<details><summary>Reasoning</summary>", "", message.reasoning.trim(), "", "</details>");
      if (message.content?.trim()) lines.push("", message.content);
      for (const call of message.tool_calls ?? []) {
        lines.push("", `**Tool call:** \`${call.function.name}\` (\`${call.id}\`)`, "", fence(prettyArguments(call.function.arguments), "json"));
      }
      return lines;
    }
    case "tool":
      return [`## Tool result${message.name ? `: ${message.name}` : ""}`, "", `Call \`${message.tool_call_id}\``, "", fence(clip(message.content, EXPORT_TOOL_RESULT_CHARS))];
    default:
      return [];
  }
}

/** Tool-call arguments pretty-printed when they are JSON, else as the model wrote them. */
function prettyArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** The session and all its messages, times as ISO 8601, nothing cut; its delegated children under `subagents`. */
export function sessionJson(session: SessionRecord, rows: readonly MessageRow[], subagents: readonly ExportedSession[] = []): unknown {
  return {
    ...(subagents.length ? { subagents: subagents.map((child) => sessionJson(child.session, child.rows, child.subagents)) } : {}),
    session: {
      ...session,
      startedAt: new Date(session.startedAt).toISOString(),
      lastActiveAt: new Date(session.lastActiveAt).toISOString(),
      endedAt: session.endedAt === null ? null : new Date(session.endedAt).toISOString(),
    },
    messages: rows.map((row) => ({ id: row.id, timestamp: new Date(row.timestamp).toISOString(), ...row.message })),
  };
}
