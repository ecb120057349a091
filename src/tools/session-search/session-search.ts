import { z } from "zod";
import { isAbortError, throwIfAborted } from "../../shared/abort.js";
import { errorMessage } from "../../shared/errors.js";
import type { SessionSearchPort, SessionSearchRole } from "../ports.js";
import { defineTool, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import type { SessionSearchErrorDetails, SessionSearchResultDetails } from "./details.js";
import {
  detailRow,
  iso,
  messageSummary,
  sessionMeta,
  shapeContext,
  shapeMessage,
  shapeRecent,
  type SessionSearchDetails,
  type SessionSearchMode,
} from "./shape.js";

export type { SessionSearchDetailRow, SessionSearchDetails, SessionSearchErrorDetails, SessionSearchMode, SessionSearchResultDetails } from "./details.js";

/** Sessions per discovery by default, and the most one call returns (Hermes' numbers). */
export const DEFAULT_SEARCH_LIMIT = 3;
export const MAX_LIMIT = 10;
/** Sessions listed by browse when no limit is given. */
export const DEFAULT_BROWSE_LIMIT = 10;
/** Messages each side of the anchor: scroll default, and the top discovery hit's window. */
export const DEFAULT_WINDOW = 5;
export const MAX_WINDOW = 20;
/** Longest query searched; longer ones are cut (Hermes' cap). */
export const MAX_QUERY_CHARS = 2048;

const SEARCHABLE_ROLES = ["user", "assistant", "tool"] as const;

const sessionSearchParams = z.lazy(() => z.object({
  query: z.string().optional().describe("Discovery: words, \"phrases\" or FTS5 expressions to find. Omit to browse."),
  limit: z.coerce
    .number()
    .optional()
    .describe(`Sessions: discovery default ${DEFAULT_SEARCH_LIMIT}, browse default ${DEFAULT_BROWSE_LIMIT}, at most ${MAX_LIMIT}`),
  role_filter: z
    .union([z.array(z.enum(SEARCHABLE_ROLES)), z.string()])
    .optional()
    .describe("Discovery: roles to search, list or comma-separated (default 'user,assistant'; add 'tool' for tool output)"),
  sort: z.enum(["relevance", "recent"]).optional().describe("Discovery: 'relevance' (default) or 'recent' (newest match first, for 'where did we leave X')"),
  session_id: z.string().optional().describe("A session id from a result: alone, read it; with around_message_id, scroll in it"),
  around_message_id: z.coerce.number().optional().describe("Scroll: message id to centre on (match_message_id, or a window's first/last id to go back/forward)"),
  window: z.coerce.number().optional().describe(`Scroll: messages each side, 1–${MAX_WINDOW} (default ${DEFAULT_WINDOW})`),
}));

export type SessionSearchArgs = z.infer<typeof sessionSearchParams>;

const DESCRIPTION = [
  "Search the user's past conversations stored on this machine, or read inside one; results are real stored messages (no model calls). The shape follows the arguments:",
  "1) DISCOVERY, `query`: full-text (implicit AND; `OR`, `NOT`, \"phrases\", `prefix*`), one result per conversation (a session with its forks and continuations; parent_session_id names the first): session_id, title, when, source (acp, cli, telegram…), a snippet with matches between >>> and <<<, match_message_id and the messages around it (±5 for the top result).",
  "2) SCROLL, `session_id` + `around_message_id` (+ `window`): the messages around one; pass a window's last/first id to move forward/back.",
  "3) READ, `session_id` alone: the whole session (first 20 and last 10 messages when long).",
  "4) BROWSE, no arguments: recent sessions with titles and previews.",
  "Use it when the user refers to earlier work ('what did we decide about X'). The current conversation is never returned.",
].join("\n");

/** The mode the arguments ask for: scroll beats read beats discovery; nothing at all is browse. */
export function sessionSearchMode(args: SessionSearchArgs): SessionSearchMode {
  const sessionId = args.session_id?.trim();
  if (sessionId && args.around_message_id !== undefined) return "scroll";
  if (sessionId) return "read";
  if (args.query?.trim()) return "discover";
  return "browse";
}

/** `session search: <query>`, `recent sessions`, or `session <id>` for scroll and read. */
function describeSessionSearch(args: SessionSearchArgs): ToolDescription {
  const mode = sessionSearchMode(args);
  const title =
    mode === "discover" ? `session search: ${args.query!.trim()}` : mode === "browse" ? "recent sessions" : `session ${args.session_id!.trim()}`;
  return { title, locations: [] };
}

/**
 * `session_search`: discovery, scroll, read and browse over stored sessions through
 * `ctx.ports.sessionSearch`. Read-only. Mistakes the model can fix (unknown session, a message not
 * in the session, a bad role) and a missing port or failing database are `isError` results with
 * `{success: false, error}`; only cancellation throws (AbortError). Successful results are JSON
 * with `success: true` and `mode`; `details` is a `SessionSearchDetails` (failures: `{ error }`).
 */
export const sessionSearchTool = defineTool({
  name: "session_search",
  description: DESCRIPTION,
  kind: "other",
  mutating: false,
  params: sessionSearchParams,
  describe: describeSessionSearch,
  async execute(args: SessionSearchArgs, ctx: ToolContext): Promise<ToolResult<SessionSearchResultDetails>> {
    throwIfAborted(ctx.signal);
    const port = ctx.ports.sessionSearch;
    if (!port) return failure("Session search is unavailable: no session database is connected to this agent.");
    const sessionId = args.session_id?.trim();
    if (!sessionId && args.around_message_id !== undefined) {
      return failure("around_message_id needs session_id: pass the session_id the message belongs to.");
    }
    if (args.around_message_id !== undefined && !Number.isInteger(args.around_message_id)) {
      return failure(`around_message_id must be a message id (a whole number), not ${args.around_message_id}.`);
    }
    try {
      switch (sessionSearchMode(args)) {
        case "scroll":
          return await scroll(port, sessionId!, args.around_message_id!, clamp(args.window, 1, MAX_WINDOW, DEFAULT_WINDOW));
        case "read":
          return await read(port, sessionId!);
        case "discover":
          return await discover(port, args);
        case "browse":
          return await browse(port, clamp(args.limit, 1, MAX_LIMIT, DEFAULT_BROWSE_LIMIT));
      }
    } catch (error) {
      if (isAbortError(error)) throw error;
      return failure(`Session search failed: ${errorMessage(error)}`);
    }
  },
});

async function discover(port: SessionSearchPort, args: SessionSearchArgs): Promise<ToolResult<SessionSearchResultDetails>> {
  const roles = parseRoles(args.role_filter);
  if (typeof roles === "string") return failure(roles);
  const query = args.query!.trim().slice(0, MAX_QUERY_CHARS);
  const hits = await port.search({
    query,
    limit: clamp(args.limit, 1, MAX_LIMIT, DEFAULT_SEARCH_LIMIT),
    ...(roles ? { roleFilter: roles } : {}),
    ...(args.sort ? { sort: args.sort } : {}),
  });
  const details: SessionSearchDetails = { mode: "discover", query, results: hits.map((hit) => detailRow(hit.session, hit.snippet)) };
  if (hits.length === 0) {
    return result({ success: true, mode: "discover", query, results: [], count: 0, message: "No matching sessions found." }, details);
  }
  // The top hit gets the full ±5 window (Hermes' adaptive detail); the others keep the store's
  // short context, enough to decide which one to scroll into.
  const top = hits[0]!;
  const window = await port.around(top.session.id, top.messageId, DEFAULT_WINDOW);
  const results = hits.map((hit, index) => {
    const full = index === 0 && window !== undefined && window.messages.length > 0;
    return {
      session_id: hit.session.id,
      title: hit.session.title,
      when: iso(hit.session.lastActiveAt),
      started_at: iso(hit.session.startedAt),
      source: hit.session.source,
      cwd: hit.session.cwd,
      message_count: hit.session.messageCount,
      matched_role: hit.role,
      matched_at: iso(hit.timestamp),
      match_message_id: hit.messageId,
      ...(hit.session.lineageRootId ? { parent_session_id: hit.session.lineageRootId } : {}),
      snippet: hit.snippet,
      detail: full ? "full" : "compact",
      messages: full ? window.messages.map((message) => shapeMessage(message, hit.messageId)) : hit.context.map(shapeContext),
    };
  });
  return result(
    {
      success: true,
      mode: "discover",
      query,
      results,
      count: results.length,
      message: "Pass session_id + around_message_id to scroll around a match, or session_id alone to read a session.",
    },
    details,
  );
}

async function scroll(port: SessionSearchPort, sessionId: string, messageId: number, window: number): Promise<ToolResult<SessionSearchResultDetails>> {
  const found = await port.around(sessionId, messageId, window);
  if (!found) return failure(`session_id not found: ${sessionId}`);
  if (found.messages.length === 0) return failure(`around_message_id ${messageId} is not in session_id ${sessionId}`);
  const anchor = found.messages.find((message) => message.id === messageId);
  const details: SessionSearchDetails = { mode: "scroll", results: [detailRow(found.session, anchor ? messageSummary(anchor) : found.session.preview)] };
  return result(
    {
      success: true,
      mode: "scroll",
      session_id: sessionId,
      around_message_id: messageId,
      session_meta: sessionMeta(found.session),
      window,
      messages: found.messages.map((message) => shapeMessage(message, messageId)),
    },
    details,
  );
}

async function read(port: SessionSearchPort, sessionId: string): Promise<ToolResult<SessionSearchResultDetails>> {
  const transcript = await port.read(sessionId);
  if (!transcript) return failure(`session_id not found: ${sessionId}`);
  const { session, messages, total, skipped, gapAfterId } = transcript;
  const details: SessionSearchDetails = { mode: "read", results: [detailRow(session, session.preview)] };
  const payload: Record<string, unknown> = {
    success: true,
    mode: "read",
    session_id: sessionId,
    session_meta: sessionMeta(session),
    message_count: total,
    truncated: skipped > 0,
    messages: messages.map((message) => shapeMessage(message)),
  };
  if (skipped > 0) {
    const gap = messages.findIndex((message) => message.id === gapAfterId);
    const head = gap >= 0 ? gap + 1 : messages.length;
    payload.skipped = skipped;
    payload.message =
      `Session has ${total} messages; showing the first ${head} and last ${messages.length - head} (${skipped} skipped). ` +
      `Pass around_message_id (e.g. ${gapAfterId ?? "any id above"}) to scroll the middle.`;
  }
  return result(payload, details);
}

async function browse(port: SessionSearchPort, limit: number): Promise<ToolResult<SessionSearchResultDetails>> {
  const sessions = await port.recent(limit);
  const details: SessionSearchDetails = { mode: "browse", results: sessions.map((session) => detailRow(session, session.preview)) };
  return result(
    {
      success: true,
      mode: "browse",
      results: sessions.map(shapeRecent),
      count: sessions.length,
      message: `Showing ${sessions.length} most recent sessions. Pass a query to search, or session_id to read one.`,
    },
    details,
  );
}

/** The roles to search, undefined for the default, or a message naming what was wrong. */
function parseRoles(value: SessionSearchArgs["role_filter"]): SessionSearchRole[] | undefined | string {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : value.split(/[\s,]+/);
  const roles = [...new Set(list.map((role) => role.trim().toLowerCase()).filter(Boolean))];
  const unknown = roles.filter((role) => !(SEARCHABLE_ROLES as readonly string[]).includes(role));
  if (unknown.length > 0) return `Unknown role in role_filter: ${unknown.join(", ")} (use user, assistant or tool).`;
  return roles.length > 0 ? (roles as SessionSearchRole[]) : undefined;
}

function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function result(payload: Record<string, unknown>, details: SessionSearchDetails): ToolResult<SessionSearchDetails> {
  return { content: JSON.stringify(payload), details };
}

function failure(error: string): ToolResult<SessionSearchErrorDetails> {
  return { content: JSON.stringify({ success: false, error }), details: { error }, isError: true };
}
