/**
 * Session lineage: a fork, a branch or a compression continuation carries `parent_session_id`,
 * and every session of one chain is one conversation for search and browse (Hermes'
 * `session_search` dedupes by the lineage root the same way). Pure helpers over a parent lookup,
 * shared by this store's own database and the read-only view of Python Hermes' state.db.
 */

/** Parent hops followed before a chain is cut (a cycle or a damaged file must not loop). */
export const MAX_LINEAGE_DEPTH = 64;

/**
 * Sources Hermes keeps out of session browsing and searching: delegate runs (`subagent`),
 * third-party integrations (`tool`), kanban workers (`kanban`) — tools/session_search_tool.py
 * `_HIDDEN_SESSION_SOURCES`.
 */
export const HIDDEN_SOURCES: readonly string[] = ["kanban", "subagent", "tool"];

/** Sources kept searchable but ranked after interactive sessions (Hermes' `_DEMOTED_SESSION_SOURCES`). */
export const DEMOTED_SOURCES: readonly string[] = ["cron"];

/** The parent of a session, undefined for a root (or an unknown session). */
export type ParentOf = (sessionId: string) => string | null | undefined;

/**
 * The sessions from `sessionId` up to its lineage root, `sessionId` first and the root last.
 * Stops at a parent that is unknown, already seen (a cycle) or `MAX_LINEAGE_DEPTH` hops away;
 * the last session reached is then the root. Never throws unless `parentOf` does.
 */
export function ancestry(sessionId: string, parentOf: ParentOf): string[] {
  const chain = [sessionId];
  const seen = new Set(chain);
  let current = sessionId;
  for (let hop = 0; hop < MAX_LINEAGE_DEPTH; hop++) {
    const parent = parentOf(current);
    if (!parent || seen.has(parent)) break;
    chain.push(parent);
    seen.add(parent);
    current = parent;
  }
  return chain;
}

/**
 * A memoising lineage-root lookup for one query: each session's parent is asked for at most once.
 * A parent `parentOf` does not know ends the chain below it (a deleted parent: the child is its
 * own root).
 */
export function rootFinder(parentOf: ParentOf): (sessionId: string) => string {
  const roots = new Map<string, string>();
  return (sessionId) => {
    const known = roots.get(sessionId);
    if (known !== undefined) return known;
    // a parent whose root is already known ends the walk there
    const chain = ancestry(sessionId, (id) => (roots.has(id) ? undefined : parentOf(id)));
    const last = chain[chain.length - 1]!;
    const root = roots.get(last) ?? last;
    for (const id of chain) roots.set(id, root);
    return root;
  };
}
