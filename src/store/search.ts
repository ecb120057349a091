/**
 * The discovery query behind `session_search`: FTS5 with BM25 ranking, one hit per lineage (a
 * session and its forks are one conversation: the best-ranked matching message of any of them;
 * for `sort: "recent"` the newest), best first or newest first; sessions of hidden sources
 * (`HIDDEN_SOURCES`, e.g. delegate runs) are never found. Matches are read in order and reading
 * stops once enough lineages are found, so a long session full of matches never crowds others
 * out. BM25 work is bounded for very common words by
 * ranking the 20,000 most recent matches first (see findCandidates). Snippets, session rows and
 * context messages are fetched for the final hits only.
 */
import { HermesError } from "../shared/errors.js";
import { messageText, toMillis } from "./codec.js";
import type { Connection } from "./connection.js";
import { planSearch, quoteFts, type SearchPlan } from "./fts-query.js";
import { messageRowsAround } from "./messages.js";
import { ancestry, HIDDEN_SOURCES, rootFinder } from "./lineage.js";
import { isSqliteError } from "./sqlite.js";
import type { HistoryOrigin, MessageRole } from "./types.js";

export const SNIPPET_OPEN = ">>>";
export const SNIPPET_CLOSE = "<<<";
const CONTEXT_CHARS = 300;
const DEFAULT_ROLES: readonly MessageRole[] = ["user", "assistant"];

export interface SearchOptions {
  query: string;
  /** Sessions to return: default 3, clamped to 1–10. */
  limit?: number;
  /** Roles searched; default user and assistant (tool output is searched only when asked). */
  roleFilter?: readonly MessageRole[];
  /**
   * The caller's live session: neither its messages nor those of its ancestors (which a fork
   * copied into it) are found.
   */
  excludeSessionId?: string;
  /** `relevance` (best BM25 first, default) or `recent` (most recent matching message first). */
  sort?: "relevance" | "recent";
  /** Messages of context on each side of the match: default 2, clamped to 0–10. */
  context?: number;
}

export interface ContextMessage {
  id: number;
  role: MessageRole;
  /** The message's text (or its tool calls), cut to 300 characters. */
  text: string;
  toolName?: string;
  isMatch: boolean;
}

export interface SearchHit {
  /** The session holding the matching message (pairs with `messageId` for a scroll). */
  sessionId: string;
  /** The first session of its lineage (the one it was forked or continued from); `sessionId` when none. */
  rootSessionId: string;
  /** Set for a hit in Python Hermes' state.db. */
  origin?: HistoryOrigin;
  /** The lineage root's title, else the session's own. */
  title: string | null;
  /** First user message of the session, one line, cut to 120 characters (for untitled sessions). */
  preview: string;
  source: string;
  cwd: string | null;
  /** The session's last activity (ms). */
  when: number;
  startedAt: number;
  messageId: number;
  role: MessageRole;
  /** When the matching message was written (ms). */
  timestamp: number;
  /** The matching text with each match between `>>>` and `<<<`. */
  snippet: string;
  /** BM25 score of the match (lower is better); null for substring matches. */
  score: number | null;
  context: ContextMessage[];
}

export interface SearchResult {
  /** Which index answered: `words` (unicode61), `trigram`, `substring` (LIKE), `none` (nothing searchable). */
  strategy: SearchPlan["kind"];
  hits: SearchHit[];
}

interface Candidate {
  id: number;
  session_id: string;
  role: MessageRole;
  timestamp: number;
  score: number | null;
}

/**
 * Runs a discovery search. Never raises for the query's content; throws HermesError("internal")
 * only when the database fails. Hits are ordered best first (`relevance`) or newest match first.
 */
export function searchMessages(conn: Connection, options: SearchOptions): SearchResult {
  const plan = planSearch(options.query);
  if (plan.kind === "none") return { strategy: "none", hits: [] };
  const limit = clamp(options.limit ?? 3, 1, 10);
  const roles = options.roleFilter && options.roleFilter.length > 0 ? options.roleFilter : DEFAULT_ROLES;
  const rootOf = rootFinder(parentLookup(conn));
  const exclude = options.excludeSessionId ? ancestry(options.excludeSessionId, parentLookup(conn)) : [];
  const candidates = findCandidates(conn, plan, { roles, exclude, recent: options.sort === "recent", sessions: limit, rootOf, hidden: hiddenLookup(conn) });
  const context = clamp(options.context ?? 2, 0, 10);
  return { strategy: plan.kind, hits: candidates.map((candidate) => toHit(conn, plan, candidate, context, rootOf(candidate.session_id))) };
}

/** The parent of a session of this database (undefined when not stored or a root). */
export function parentLookup(conn: Connection): (sessionId: string) => string | null | undefined {
  const statement = conn.stmt<{ parent_session_id: string | null }>("SELECT parent_session_id FROM sessions WHERE id = ?");
  return (sessionId) => statement.get(sessionId)?.parent_session_id;
}

/** True for a session of a hidden source (`HIDDEN_SOURCES`: delegate runs and the like), memoised. */
export function hiddenLookup(conn: Connection): (sessionId: string) => boolean {
  const statement = conn.stmt<{ source: string }>("SELECT source FROM sessions WHERE id = ?");
  const known = new Map<string, boolean>();
  return (sessionId) => {
    let hidden = known.get(sessionId);
    if (hidden === undefined) {
      hidden = HIDDEN_SOURCES.includes(statement.get(sessionId)?.source ?? "");
      known.set(sessionId, hidden);
    }
    return hidden;
  };
}

const FILTERS = "m.role IN (SELECT value FROM json_each(@roles)) AND m.session_id NOT IN (SELECT value FROM json_each(@exclude))";
const COLUMNS = "m.id AS id, m.session_id AS session_id, m.role AS role, m.timestamp AS timestamp";
/** BM25 is computed for at most this many matches at first: the most recent ones. */
export const RANK_WINDOW = 20_000;

interface CandidateQuery {
  roles: readonly MessageRole[];
  /** Sessions whose messages are not searched. */
  exclude: readonly string[];
  recent: boolean;
  /** Lineages wanted. */
  sessions: number;
  rootOf: (sessionId: string) => string;
  /** Sessions never found (hidden sources). */
  hidden: (sessionId: string) => boolean;
}

type Plan = Exclude<SearchPlan, { kind: "none" }>;

/**
 * The hit message of up to `query.sessions` lineages, best first. Each step reads matches in
 * order (best BM25, or newest) and stops as soon as enough distinct lineages passed the filters;
 * the first row seen of a lineage is its best. Relevance steps widen until enough sessions are
 * found: the best 1,000 of the 20,000 most recent matches, then all those 20,000, then every match
 * (only reached when few sessions match, or a filter rejects most matches of a very common word).
 */
function findCandidates(conn: Connection, plan: Plan, query: CandidateQuery): Candidate[] {
  const likes = plan.kind === "words" ? [] : plan.likes;
  const likeOn = (alias: string): string => likes.map((_, index) => ` AND ${alias}.content LIKE @like${index} ESCAPE '\\'`).join("");
  const params: Record<string, unknown> = { roles: JSON.stringify(query.roles), exclude: JSON.stringify(query.exclude) };
  likes.forEach((pattern, index) => (params[`like${index}`] = pattern));
  if (plan.kind === "substring") {
    // The messages with text of those scripts are the trigram index's rows, listed one per message
    // (newest first by rowid) in its docsize table, whatever condition chose them.
    const sql = `SELECT ${COLUMNS}, NULL AS score FROM messages_fts_trigram_docsize d CROSS JOIN messages m
      WHERE m.id = d.id${likeOn("m")} AND ${FILTERS} ORDER BY d.id DESC`;
    return firstPerLineage(conn, sql, params, plan, query);
  }
  const table = plan.kind === "words" ? "messages_fts" : "messages_fts_trigram";
  params.match = plan.match;
  const everyMatch = (order: string, score: string): string => `SELECT ${COLUMNS}, ${score} AS score
    FROM ${table} JOIN messages m ON m.id = ${table}.rowid WHERE ${table} MATCH @match${likeOn("m")} AND ${FILTERS} ORDER BY ${order}`;
  if (query.recent) return firstPerLineage(conn, everyMatch(`${table}.rowid DESC`, `bm25(${table})`), params, plan, query);

  const window = likes.length
    ? `SELECT ${table}.rowid AS id, bm25(${table}) AS score FROM ${table} JOIN messages w ON w.id = ${table}.rowid
       WHERE ${table} MATCH @match${likeOn("w")} ORDER BY ${table}.rowid DESC LIMIT ${RANK_WINDOW}`
    : `SELECT rowid AS id, bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH @match ORDER BY rowid DESC LIMIT ${RANK_WINDOW}`;
  // LIMIT keeps the ranked subquery from being flattened, so the outer ORDER BY is its order and
  // the join runs lazily. The best 1,000 first when user and assistant messages are searched
  // (their short texts rank high); a narrower role filter starts with the whole window.
  const ranked = (pool: number): string => `SELECT ${COLUMNS}, c.score AS score
    FROM (SELECT id, score FROM (${window}) ORDER BY score LIMIT ${pool}) c JOIN messages m ON m.id = c.id WHERE ${FILTERS} ORDER BY c.score`;
  const broad = query.roles.includes("user") && query.roles.includes("assistant");
  const steps = [...(broad ? [ranked(1_000)] : []), ranked(RANK_WINDOW), everyMatch(`${table}.rank`, `${table}.rank`)];
  let found: Candidate[] = [];
  for (const sql of steps) {
    found = firstPerLineage(conn, sql, params, plan, query);
    if (found.length >= query.sessions) break;
  }
  return found;
}

/** The first row of each lineage from `sql`'s rows, until `query.sessions` lineages are found. */
function firstPerLineage(conn: Connection, sql: string, params: Record<string, unknown>, plan: Plan, query: CandidateQuery): Candidate[] {
  const collect = (bound: Record<string, unknown>): Candidate[] => {
    const byLineage = new Map<string, Candidate>();
    for (const row of conn.stmt<Candidate>(sql).iterate(bound)) {
      if (query.hidden(row.session_id)) continue;
      const root = query.rootOf(row.session_id);
      if (!byLineage.has(root)) byLineage.set(root, row);
      if (byLineage.size >= query.sessions) break;
    }
    return [...byLineage.values()];
  };
  try {
    return collect(params);
  } catch (error) {
    // planSearch emits only quoted strings and operators between terms; should FTS5 still reject
    // the expression, search for all the terms instead of failing the tool call.
    if (!isSqliteError(error) || plan.kind !== "words") throw error;
    return collect({ ...params, match: plan.terms.map(quoteFts).join(" ") });
  }
}

interface HitSessionRow {
  title: string | null;
  source: string;
  cwd: string | null;
  started_at: number;
  last_active: number;
}

function toHit(conn: Connection, plan: Exclude<SearchPlan, { kind: "none" }>, candidate: Candidate, context: number, rootId: string): SearchHit {
  const sessionRow = conn.stmt<HitSessionRow>("SELECT title, source, cwd, started_at, last_active FROM sessions WHERE id = ?");
  const session = sessionRow.get(candidate.session_id);
  if (!session) throw new HermesError("internal", `message ${candidate.id} belongs to no stored session`);
  const rootTitle = rootId === candidate.session_id ? session.title : (sessionRow.get(rootId)?.title ?? null);
  const around = messageRowsAround(conn, candidate.session_id, candidate.id, context, context);
  return {
    sessionId: candidate.session_id,
    rootSessionId: rootId,
    title: rootTitle ?? session.title,
    preview: sessionPreview(conn, candidate.session_id),
    source: session.source,
    cwd: session.cwd,
    when: toMillis(session.last_active),
    startedAt: toMillis(session.started_at),
    messageId: candidate.id,
    role: candidate.role,
    timestamp: toMillis(candidate.timestamp),
    snippet: snippetOf(conn, plan, candidate.id),
    score: candidate.score,
    context: around.map((row) => ({
      id: row.id,
      role: row.message.role,
      text: cut(messageText(row.message), CONTEXT_CHARS),
      ...(row.message.role === "tool" && row.message.name ? { toolName: row.message.name } : {}),
      isMatch: row.id === candidate.id,
    })),
  };
}

function snippetOf(conn: Connection, plan: Exclude<SearchPlan, { kind: "none" }>, id: number): string {
  if (plan.kind !== "substring") {
    // CAST: FTS5 ignores a rowid equality bound as a REAL, which is how JS numbers arrive
    const [table, tokens] = plan.kind === "words" ? ["messages_fts", 16] : ["messages_fts_trigram", 48];
    const snippet = conn
      .stmt<{ s: string | null }>(`SELECT snippet(${table}, 0, '${SNIPPET_OPEN}', '${SNIPPET_CLOSE}', '…', ${tokens}) AS s FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`)
      .get(plan.match, id);
    if (snippet?.s) return snippet.s;
  }
  const content = conn.stmt<{ content: string | null }>("SELECT content FROM messages WHERE id = ?").get(id)?.content ?? "";
  return substringSnippet(content, plan.terms);
}

/** A window of `content` around the first occurrence of the first term found, markers around each term. */
export function substringSnippet(content: string, terms: readonly string[], radius = 60): string {
  const lower = content.toLowerCase();
  const found = terms.map((term) => ({ term, at: lower.indexOf(term.toLowerCase()) })).filter((t) => t.at >= 0);
  if (found.length === 0) return cut(content, radius * 2);
  const first = Math.min(...found.map((t) => t.at));
  const start = Math.max(0, first - radius);
  const end = Math.min(content.length, first + radius);
  let window = content.slice(start, end);
  for (const { term } of found) {
    window = window.replace(new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), (m) => `${SNIPPET_OPEN}${m}${SNIPPET_CLOSE}`);
  }
  return `${start > 0 ? "…" : ""}${window}${end < content.length ? "…" : ""}`;
}

/** The session's first user message on one line, cut to `max` characters ("" when none). */
export function sessionPreview(conn: Connection, sessionId: string, max = 120): string {
  const row = conn.stmt<{ content: string | null }>("SELECT content FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id LIMIT 1").get(sessionId);
  return cut((row?.content ?? "").replace(/\s+/g, " ").trim(), max);
}

export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : min;
}
