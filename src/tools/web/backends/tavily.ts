/**
 * Tavily (https://docs.tavily.com): `POST /search` `{query, max_results, include_raw_content:
 * false, include_images: false}` → `{results: [{title, url, content, score}]}` and `POST /extract`
 * `{urls, include_images: false}` → `{results: [{url, raw_content}], failed_results: [{url,
 * error}]}`, `Authorization: Bearer <key>`. A hit's description is its `content` (Hermes).
 */
import type { BackendSettings } from "../backend-config.js";
import { list, numbered, record, requestJson, text, type BackendPage, type SearchHit, type WebBackend } from "./http.js";

export function tavilyBackend(settings: BackendSettings): WebBackend {
  const label = "Tavily";
  const headers = { authorization: `Bearer ${settings.apiKey ?? ""}` };
  return {
    label,
    async search(query, limit, signal): Promise<SearchHit[]> {
      const body = { query, max_results: Math.min(Math.max(limit, 1), 20), include_raw_content: false, include_images: false };
      const answer = record(await requestJson(label, `${settings.baseUrl}/search`, { method: "POST", headers, body }, signal));
      return numbered(
        list(answer.results).map((row) => {
          const hit = record(row);
          return { title: text(hit.title), url: text(hit.url), description: text(hit.content) };
        }),
        limit,
      );
    },
    async extract(urls, signal): Promise<BackendPage[]> {
      const answer = record(await requestJson(label, `${settings.baseUrl}/extract`, { method: "POST", headers, body: { urls, include_images: false } }, signal));
      const pages: BackendPage[] = list(answer.results).map((row) => {
        const page = record(row);
        return { url: text(page.url) || urls[0] || "", title: text(page.title), content: text(page.raw_content) || text(page.content) };
      });
      for (const row of list(answer.failed_results)) {
        const failure = record(row);
        pages.push({ url: text(failure.url), title: "", content: "", error: text(failure.error) || "extraction failed" });
      }
      for (const url of list(answer.failed_urls)) pages.push({ url: text(url), title: "", content: "", error: "extraction failed" });
      return pages;
    },
  };
}
