/**
 * Parallel (https://docs.parallel.ai): `POST /v1/search` `{objective, search_queries: [q],
 * advanced_settings: {max_results}}` → `{search_id, results: [{url, title, excerpts: [...]}]}`, and
 * `POST /v1/extract` `{urls, advanced_settings: {full_content: true}}` → `{results: [{url, title,
 * full_content, excerpts}], errors: [{url, error_type, content}]}`, `x-api-key: <key>`. The
 * description of a hit is its excerpts joined (Hermes). `PARALLEL_SEARCH_MODE` (basic | advanced)
 * picks the search mode; absent, the API's default.
 */
import type { BackendSettings } from "../backend-config.js";
import { joined, list, numbered, record, requestJson, text, type BackendPage, type SearchHit, type WebBackend } from "./http.js";

export function parallelBackend(settings: BackendSettings, env: NodeJS.ProcessEnv): WebBackend {
  const label = "Parallel";
  const headers = { "x-api-key": settings.apiKey ?? "" };
  const mode = parallelMode(env.PARALLEL_SEARCH_MODE);
  return {
    label,
    async search(query, limit, signal): Promise<SearchHit[]> {
      const body = { objective: query, search_queries: [query], ...(mode ? { mode } : {}), advanced_settings: { max_results: Math.min(Math.max(limit, 1), 20) } };
      const answer = record(await requestJson(label, `${settings.baseUrl}/v1/search`, { method: "POST", headers, body }, signal));
      return numbered(
        list(answer.results).map((row) => {
          const hit = record(row);
          return { title: text(hit.title), url: text(hit.url), description: joined(hit.excerpts, " ") };
        }),
        limit,
      );
    },
    async extract(urls, signal): Promise<BackendPage[]> {
      const body = { urls, advanced_settings: { full_content: true } };
      const answer = record(await requestJson(label, `${settings.baseUrl}/v1/extract`, { method: "POST", headers, body }, signal));
      const pages: BackendPage[] = list(answer.results).map((row) => {
        const page = record(row);
        return { url: text(page.url), title: text(page.title), content: text(page.full_content) || joined(page.excerpts, "\n\n") };
      });
      for (const row of list(answer.errors)) {
        const failure = record(row);
        pages.push({ url: text(failure.url), title: "", content: "", error: text(failure.content) || text(failure.message) || text(failure.error_type) || "extraction failed" });
      }
      return pages;
    },
  };
}

/** Hermes' mapping: basic (legacy fast / one-shot) or advanced (legacy agentic); anything else = the API default. */
function parallelMode(value: string | undefined): string | undefined {
  const mode = value?.trim().toLowerCase();
  if (mode === "basic" || mode === "fast" || mode === "one-shot") return "basic";
  if (mode === "advanced" || mode === "agentic") return "advanced";
  return undefined;
}
