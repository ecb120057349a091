import type { SessionSearchDetailRow, SessionSearchDetails } from "../../tools/session-search/details.js";
import { errorText, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolEndOf, ToolRenderer } from "./types.js";

/** Longest summary line under a result. */
const MAX_SUMMARY = 500;

/**
 * `session_search` in the editor. Start: `Searching past sessions for: <q>`, `Loading recent
 * sessions`, or the session being read or scrolled. Completion: a heading (`Recent sessions`,
 * ``Session search results for `q` ``…) and one line per session, `- **title** (`id`) — when,
 * source, N msgs`, with its snippet or preview (≤ 500 chars, matches in bold) below; 7,000 chars
 * at most. A call without details (stored before they were) shows its text.
 */
export const sessionSearchRenderer: ToolRenderer<"session_search"> = {
  start(event) {
    const sessionId = event.input?.session_id?.trim() ?? "";
    const query = event.input?.query?.trim() ?? "";
    const anchor = event.input?.around_message_id;
    if (sessionId && anchor !== undefined) return [textContent(`Loading messages around #${anchor} in session ${sessionId}`)];
    if (sessionId) return [textContent(`Reading session ${sessionId}`)];
    if (query) return [textContent(`Searching past sessions for: ${query}`)];
    return [textContent("Loading recent sessions")];
  },
  complete(event) {
    const details = event.details;
    if (event.isError) {
      const error = details && "error" in details ? details.error : errorText(event.content);
      return { content: [textContent(truncate(`Session search failed: ${error}`))], failed: true };
    }
    if (!details || "error" in details) return { content: event.content ? [textContent(truncate(event.content))] : [] };
    const lines = [heading(details, event)];
    if (details.results.length === 0) lines.push("", details.mode === "discover" ? "No matching sessions found." : "No earlier sessions.");
    for (const row of details.results) lines.push(...rowLines(row));
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};

function heading(listing: SessionSearchDetails, event: ToolEndOf<"session_search">): string {
  switch (listing.mode) {
    case "browse":
      return "Recent sessions";
    case "discover":
      return `Session search results for ${code(listing.query ?? "")}`;
    case "scroll": {
      const anchor = event.input?.around_message_id;
      return anchor === undefined ? "Session messages" : `Session messages around #${anchor}`;
    }
    default:
      return "Session transcript";
  }
}

function rowLines(row: SessionSearchDetailRow): string[] {
  const facts = [row.when ? formatWhen(row.when) : undefined, row.source, row.messageCount === undefined ? undefined : `${row.messageCount} msgs`].filter(Boolean);
  const title = (row.title?.trim() || "(untitled)").replace(/\s+/g, " ").replace(/([*_`\\])/g, "\\$1");
  const lines = [`- **${title}** (${code(row.sessionId)})${facts.length ? ` — ${facts.join(", ")}` : ""}`];
  const summary = highlight(row.summary.replace(/\s+/g, " ").trim());
  if (summary) lines.push(`  ${summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary}`);
  return lines;
}

/** Snippet markers (`>>>match<<<`) as bold. */
function highlight(text: string): string {
  return text.replace(/>>>(.*?)<<</g, (_, match: string) => (match ? `**${match}**` : ""));
}

/** `2025-01-02T03:04:05.000Z` as `2025-01-02 03:04 UTC`; anything else unchanged. */
function formatWhen(when: string): string {
  const date = new Date(when);
  return Number.isFinite(date.getTime()) ? `${date.toISOString().slice(0, 16).replace("T", " ")} UTC` : when;
}

/** Inline code with a backtick run longer than any inside `text`. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
