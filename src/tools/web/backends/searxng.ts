/**
 * SearXNG, self-hosted (https://docs.searxng.org/dev/search_api.html): `GET /search?q=…&format=json
 * &pageno=1` → `{results: [{url, title, content, score}]}`, no key. Results are ordered by score,
 * best first, as Hermes does. Search only: pages are fetched directly. The instance must list
 * `json` under `search.formats` in its settings.yml (it answers 403 otherwise).
 */
import type { BackendSettings } from "../backend-config.js";
import { BackendError, list, numbered, record, requestJson, text, type SearchHit, type WebBackend } from "./http.js";

export function searxngBackend(settings: BackendSettings): WebBackend {
  const label = "SearXNG";
  return {
    label,
    async search(query, limit, signal): Promise<SearchHit[]> {
      const url = `${settings.baseUrl}/search?${new URLSearchParams({ q: query, format: "json", pageno: "1" })}`;
      let answer: Record<string, unknown>;
      try {
        answer = record(await requestJson(label, url, { method: "GET", timeoutMs: 15_000 }, signal));
      } catch (error) {
        if (error instanceof BackendError && error.status === 403) {
          throw new BackendError(`${error.message} (the instance must allow JSON: add json to search.formats in its settings.yml)`, 403);
        }
        throw error;
      }
      const rows = list(answer.results).map(record);
      const score = (row: Record<string, unknown>): number => (typeof row.score === "number" ? row.score : Number(row.score) || 0);
      rows.sort((a, b) => score(b) - score(a));
      return numbered(
        rows.map((row) => ({ title: text(row.title), url: text(row.url), description: text(row.content) })),
        limit,
      );
    },
  };
}
