import { structuredFailure } from "./generic.js";
import { errorText, isRecord, parseJsonResult, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolEnd, ToolRenderer } from "./types.js";

/** Longest summary line under a result. */
const MAX_SUMMARY = 500;

interface Row {
  sessionId: string;
  title: string | null;
  when: string | undefined;
  source: string | undefined;
  messageCount: number | undefined;
  summary: string;
}

interface Listing {
  mode: string;
  query: string | undefined;
  rows: Row[];
}

/**
 * `session_search` in the editor. Start: `Searching past sessions for: <q>`, `Loading recent
 * sessions`, or the session being read or scrolled. Completion: a heading (`Recent sessions`,
 * ``Session search results for `q` ``…) and one line per session, `- **title** (`id`) — when,
 * source, N msgs`, with its snippet or preview (≤ 500 chars, matches in bold) below; 7,000 chars
 * at most. Reads the tool's `details`, or, for a call replayed from history (no details), the
 * result JSON itself.
 */
export const sessionSearchRenderer: ToolRenderer = {
  start(event) {
    const args = isRecord(event.args) ? event.args : {};
    const sessionId = typeof args.session_id === "string" ? args.session_id.trim() : "";
    const query = typeof args.query === "string" ? args.query.trim() : "";
    if (sessionId && args.around_message_id !== undefined && args.around_message_id !== null) {
      return [textContent(`Loading messages around #${String(args.around_message_id)} in session ${sessionId}`)];
    }
    if (sessionId) return [textContent(`Reading session ${sessionId}`)];
    if (query) return [textContent(`Searching past sessions for: ${query}`)];
    return [textContent("Loading recent sessions")];
  },
  complete(event) {
    const parsed = parseJsonResult(event.content);
    if (event.isError || structuredFailure(parsed)) {
      return { content: [textContent(truncate(`Session search failed: ${errorText(event.content)}`))], failed: true };
    }
    const listing = listingFromDetails(event.details) ?? listingFromResult(parsed);
    if (!listing) return { content: event.content ? [textContent(truncate(event.content))] : [] };
    const lines = [heading(listing, event)];
    if (listing.rows.length === 0) lines.push("", listing.mode === "discover" ? "No matching sessions found." : "No earlier sessions.");
    for (const row of listing.rows) lines.push(...rowLines(row));
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};

function heading(listing: Listing, event: ToolEnd): string {
  switch (listing.mode) {
    case "browse":
      return "Recent sessions";
    case "discover":
      return `Session search results for ${code(listing.query ?? "")}`;
    case "scroll": {
      const anchor = isRecord(event.args) ? event.args.around_message_id : undefined;
      return anchor === undefined ? "Session messages" : `Session messages around #${String(anchor)}`;
    }
    default:
      return "Session transcript";
  }
}

function rowLines(row: Row): string[] {
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

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** The tool's `SessionSearchDetails`, when present and well-formed. */
function listingFromDetails(details: unknown): Listing | undefined {
  if (!isRecord(details) || typeof details.mode !== "string" || !Array.isArray(details.results)) return undefined;
  const rows = details.results.filter(isRecord).map((row) => ({
    sessionId: String(row.sessionId ?? ""),
    title: str(row.title) ?? null,
    when: str(row.when),
    source: str(row.source),
    messageCount: num(row.messageCount),
    summary: str(row.summary) ?? "",
  }));
  return { mode: details.mode, query: str(details.query), rows };
}

/** The same listing from the result JSON (Hermes' field names), for replayed calls. */
function listingFromResult(result: unknown): Listing | undefined {
  if (!isRecord(result) || typeof result.mode !== "string") return undefined;
  if (Array.isArray(result.results)) {
    const rows = result.results.filter(isRecord).map((row) => ({
      sessionId: String(row.session_id ?? ""),
      title: str(row.title) ?? null,
      when: str(row.when) ?? str(row.last_active),
      source: str(row.source),
      messageCount: num(row.message_count),
      summary: str(row.snippet) ?? str(row.preview) ?? "",
    }));
    return { mode: result.mode, query: str(result.query), rows };
  }
  const meta = isRecord(result.session_meta) ? result.session_meta : {};
  const messages = Array.isArray(result.messages) ? result.messages.filter(isRecord) : [];
  const shown = messages.find((message) => message.anchor === true) ?? messages.find((message) => message.role === "user");
  const row: Row = {
    sessionId: String(result.session_id ?? ""),
    title: str(meta.title) ?? null,
    when: str(meta.when),
    source: str(meta.source),
    messageCount: num(meta.message_count) ?? num(result.message_count),
    summary: str(shown?.content) ?? "",
  };
  return { mode: result.mode, query: undefined, rows: [row] };
}
