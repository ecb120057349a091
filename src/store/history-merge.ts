/**
 * Merging answers of hermes-acp's own database with those of Python Hermes' state.db. Pure.
 *
 * BM25 scores of two databases are not comparable (each ranks against its own corpus), so
 * relevance results are merged by rank: each database's best hit, then each one's second, and
 * so on; within one rank the more recent match comes first. `recent` results, browse rows and
 * listings are merged by time alone. In every case `cron` hits of Hermes come after all others,
 * as Hermes' own ranking demotes them.
 */
import type { RecentSession } from "./browse.js";
import { DEMOTED_SOURCES } from "./lineage.js";
import type { SearchHit } from "./search.js";
import type { SessionSummary } from "./types.js";

/** Discovery hits of both databases as one list of at most `limit`, each list already best first. */
export function mergeHits(own: readonly SearchHit[], hermes: readonly SearchHit[], sort: "relevance" | "recent", limit: number): SearchHit[] {
  let merged: SearchHit[];
  if (sort === "recent") {
    merged = [...own, ...hermes].sort((a, b) => b.timestamp - a.timestamp);
  } else {
    merged = [];
    for (let rank = 0; rank < Math.max(own.length, hermes.length); rank++) {
      const pair = [own[rank], hermes[rank]].filter((hit): hit is SearchHit => hit !== undefined);
      merged.push(...pair.sort((a, b) => b.timestamp - a.timestamp));
    }
  }
  const demoted = (hit: SearchHit): boolean => hit.origin === "hermes" && DEMOTED_SOURCES.includes(hit.source);
  return [...merged.filter((hit) => !demoted(hit)), ...merged.filter(demoted)].slice(0, limit);
}

/** Browse rows of both databases, most recently active first, at most `limit`. */
export function mergeRecent(own: readonly RecentSession[], hermes: readonly RecentSession[], limit: number): RecentSession[] {
  return [...own, ...hermes].sort((a, b) => b.lastActiveAt - a.lastActiveAt).slice(0, limit);
}

/** Listed sessions of both databases, most recently active first, at most `limit`. */
export function mergeSummaries(own: readonly SessionSummary[], hermes: readonly SessionSummary[], limit: number): SessionSummary[] {
  return [...own, ...hermes].sort((a, b) => b.lastActiveAt - a.lastActiveAt).slice(0, limit);
}
