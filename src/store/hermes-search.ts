/**
 * Discovery over Python Hermes' state.db, read-only, the way its `session_search` does it: the
 * best 300 matching rows (BM25 from its `messages_fts`, or newest first), hidden sources and
 * delegate children left out, rewound and hidden rows skipped, one hit per lineage (a fork,
 * branch or compression continuation and its parent are one conversation; the first-ranked row
 * of the lineage is its hit, titled with the root's title), `cron` lineages after the others.
 *
 * When its word index is missing or fails, and for CJK queries without its trigram index, the
 * terms are matched with LIKE over the newest 300 matching rows instead (every term must occur;
 * `OR` / `NOT` are not honoured there). Failures of an index are reported once through `report`.
 *
 * Unlike Hermes, BM25 is first computed for the most recent `RANK_WINDOW` (20,000) matches only,
 * as hermes-acp's own search does (search.ts): ranking every match of a very common word costs
 * ~100 ms on half a million messages. Every match is ranked when that window yields fewer
 * lineages than asked for.
 */
import { messageText } from "./codec.js";
import type { Connection } from "./connection.js";
import { likeContains, planSearch, quoteFts, type SearchPlan } from "./fts-query.js";
import { believableMillis, hermesPreview, parentOf, sessionRow, textOfContent, toRecord, visibleAround } from "./hermes-rows.js";
import { asNumber, asText, visibleMessage, visibleSession, type HermesSchema } from "./hermes-schema.js";
import { DEMOTED_SOURCES, rootFinder } from "./lineage.js";
import { cut, RANK_WINDOW, SNIPPET_CLOSE, SNIPPET_OPEN, substringSnippet, type SearchHit, type SearchOptions } from "./search.js";
import { isSqliteError } from "./sqlite.js";
import type { MessageRole } from "./types.js";

/** Matching rows read before lineages are picked (Hermes' `_DISCOVER_SCAN_LIMIT`). */
export const HERMES_SCAN_ROWS = 300;
const CONTEXT_CHARS = 300;

interface Row {
  id: number;
  session_id: string;
  role: MessageRole;
  timestamp: number;
  score: number | null;
  source: string;
}

type Route = { kind: "fts"; table: "messages_fts" | "messages_fts_trigram"; match: string; likes: string[] } | { kind: "like"; likes: string[] };

/**
 * Up to `options.limit` (1–10, default 3) hits, best first (or newest match first for
 * `sort: "recent"`). `excludeSessionId` is ignored: the caller's session is never Hermes'.
 * Throws SQLite's error only when the messages themselves cannot be read.
 */
export function searchHermes(conn: Connection, schema: HermesSchema, options: SearchOptions, report: (problem: string) => void): SearchHit[] {
  const plan = planSearch(options.query);
  if (plan.kind === "none") return [];
  const limit = Math.min(10, Math.max(1, Math.floor(Number.isFinite(options.limit) ? options.limit! : 3)));
  const roles = options.roleFilter && options.roleFilter.length > 0 ? options.roleFilter : ["user", "assistant"];
  const recent = options.sort === "recent";
  const route = routeFor(plan, schema);
  const find = (windowed: boolean): Array<{ row: Row; root: string }> => {
    let rows: Row[];
    try {
      rows = scan(conn, schema, route, roles, recent, plan, windowed);
    } catch (error) {
      if (route.kind !== "fts" || !isSqliteError(error)) throw error;
      report(`its search index ${route.table} failed (${error.message}); searching its messages by substring`);
      rows = scan(conn, schema, { kind: "like", likes: plan.terms.map(likeContains) }, roles, recent, plan, false);
    }
    return pickLineages(conn, schema, rows, limit);
  };
  const windowed = route.kind === "fts" && !recent;
  let picked = find(windowed);
  if (windowed && picked.length < limit) picked = find(false);
  const context = Math.min(10, Math.max(0, Math.floor(options.context ?? 2)));
  return picked.map(({ row, root }) => toHit(conn, schema, route, plan, row, root, context));
}

function routeFor(plan: Exclude<SearchPlan, { kind: "none" }>, schema: HermesSchema): Route {
  if (plan.kind === "words" && schema.words) return { kind: "fts", table: "messages_fts", match: plan.match, likes: [] };
  if (plan.kind === "trigram" && schema.trigram) return { kind: "fts", table: "messages_fts_trigram", match: plan.match, likes: plan.likes };
  return { kind: "like", likes: plan.terms.map(likeContains) };
}

/**
 * The first `HERMES_SCAN_ROWS` matching visible rows of visible sessions, in ranking order;
 * `windowed`: ranked among the `RANK_WINDOW` most recent matches only (relevance over an index).
 */
function scan(
  conn: Connection,
  schema: HermesSchema,
  route: Route,
  roles: readonly string[],
  recent: boolean,
  plan: Exclude<SearchPlan, { kind: "none" }>,
  windowed: boolean,
): Row[] {
  const params: Record<string, unknown> = { roles: JSON.stringify(roles) };
  route.likes.forEach((pattern, index) => (params[`like${index}`] = pattern));
  const filters = [
    ...route.likes.map((_, index) => `m.content LIKE @like${index} ESCAPE '\\'`),
    "m.role IN (SELECT value FROM json_each(@roles))",
    visibleMessage(schema.messageColumns, "m"),
    visibleSession(schema.sessionColumns, "s"),
  ].join(" AND ");
  const columns = `m.id AS id, s.id AS session_id, m.role AS role, ${asNumber("m.timestamp")} AS timestamp, ${asText("s.source")} AS source`;
  if (route.kind === "like") {
    const sql = `SELECT ${columns}, NULL AS score FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE ${filters} ORDER BY m.id DESC LIMIT ${HERMES_SCAN_ROWS}`;
    return conn.stmt<Row>(sql).all(params);
  }
  const table = route.table;
  // LIMIT keeps the ranked window from being flattened into the join, so BM25 is computed for the
  // window only and the outer ORDER BY is its order.
  const sql = windowed
    ? `SELECT ${columns}, c.score AS score FROM (SELECT id, score FROM (SELECT rowid AS id, bm25(${table}) AS score FROM ${table}
        WHERE ${table} MATCH @match ORDER BY rowid DESC LIMIT ${RANK_WINDOW}) ORDER BY score LIMIT ${RANK_WINDOW}) c
        JOIN messages m ON m.id = c.id JOIN sessions s ON s.id = m.session_id WHERE ${filters} ORDER BY c.score LIMIT ${HERMES_SCAN_ROWS}`
    : `SELECT ${columns}, bm25(${table}) AS score FROM ${table} JOIN messages m ON m.id = ${table}.rowid JOIN sessions s ON s.id = m.session_id
    WHERE ${table} MATCH @match AND ${filters} ORDER BY ${recent ? `${table}.rowid DESC` : `${table}.rank`} LIMIT ${HERMES_SCAN_ROWS}`;
  try {
    return conn.stmt<Row>(sql).all({ ...params, match: route.match });
  } catch (error) {
    // planSearch quotes every term; should FTS5 still reject the expression, AND all the terms
    if (!isSqliteError(error) || plan.kind !== "words" || table !== "messages_fts") throw error;
    return conn.stmt<Row>(sql).all({ ...params, match: plan.terms.map(quoteFts).join(" ") });
  }
}

/**
 * The first row of each lineage whose root is visible, interactive lineages first and `cron`
 * ones after, at most `limit`.
 */
function pickLineages(conn: Connection, schema: HermesSchema, rows: readonly Row[], limit: number): Array<{ row: Row; root: string }> {
  const rootOf = rootFinder((id) => parentOf(conn, schema, id));
  const rootVisible = new Map<string, { visible: boolean; source: string | null }>();
  const rootState = (root: string): { visible: boolean; source: string | null } => {
    let state = rootVisible.get(root);
    if (!state) {
      const found = conn
        .stmt<{ source: string | null; visible: number }>(`SELECT s.source AS source, (${visibleSession(schema.sessionColumns, "s")}) AS visible FROM sessions s WHERE s.id = ?`)
        .get(root);
      state = found ? { visible: found.visible === 1, source: found.source } : { visible: true, source: null };
      rootVisible.set(root, state);
    }
    return state;
  };
  const interactive = new Map<string, Row>();
  const demoted = new Map<string, Row>();
  for (const row of rows) {
    const root = rootOf(row.session_id);
    if (interactive.has(root) || demoted.has(root)) continue;
    const state = rootState(root);
    if (!state.visible) continue;
    const isDemoted = DEMOTED_SOURCES.includes(row.source) || (state.source !== null && DEMOTED_SOURCES.includes(state.source));
    (isDemoted ? demoted : interactive).set(root, row);
    if (interactive.size >= limit) break;
  }
  return [...interactive, ...demoted].slice(0, limit).map(([root, row]) => ({ row, root }));
}

function toHit(conn: Connection, schema: HermesSchema, route: Route, plan: Exclude<SearchPlan, { kind: "none" }>, row: Row, rootId: string, context: number): SearchHit {
  const own = sessionRow(conn, schema, row.session_id)!;
  const record = toRecord(conn, schema, own);
  const root = rootId === row.session_id ? own : sessionRow(conn, schema, rootId);
  const around = visibleAround(conn, schema, row.session_id, row.id, context, context);
  return {
    sessionId: row.session_id,
    rootSessionId: rootId,
    origin: "hermes",
    title: root?.title ?? own.title,
    preview: hermesPreview(conn, schema, row.session_id),
    source: root?.source ?? record.source,
    cwd: record.cwd,
    when: record.lastActiveAt,
    startedAt: record.startedAt,
    messageId: row.id,
    role: row.role,
    timestamp: believableMillis(row.timestamp) ?? 0,
    snippet: snippetOf(conn, route, plan, row.id),
    score: row.score,
    context: around.map((message) => ({
      id: message.id,
      role: message.message.role,
      text: cut(messageText(message.message), CONTEXT_CHARS),
      ...(message.message.role === "tool" && message.message.name ? { toolName: message.message.name } : {}),
      isMatch: message.id === row.id,
    })),
  };
}

/** FTS5's snippet with `>>>` / `<<<` markers, else a window of the text around the first term. */
function snippetOf(conn: Connection, route: Route, plan: Exclude<SearchPlan, { kind: "none" }>, id: number): string {
  if (route.kind === "fts") {
    try {
      const tokens = route.table === "messages_fts" ? 16 : 48;
      const snippet = conn
        .stmt<{ s: string | null }>(
          `SELECT snippet(${route.table}, 0, '${SNIPPET_OPEN}', '${SNIPPET_CLOSE}', '…', ${tokens}) AS s FROM ${route.table} WHERE ${route.table} MATCH ? AND rowid = CAST(? AS INTEGER)`,
        )
        .get(route.match, id);
      if (snippet?.s && snippet.s.includes(SNIPPET_OPEN)) return snippet.s;
    } catch {
      // an index that cannot make a snippet still found the row: cut one from the text below
    }
  }
  const content = conn.stmt<{ content: string | null }>(`SELECT ${asText("content")} AS content FROM messages WHERE id = CAST(? AS INTEGER)`).get(id)?.content ?? null;
  return substringSnippet(textOfContent(content), plan.terms);
}
