/**
 * Exa (https://exa.ai/docs): `POST /search` `{query, numResults, contents: {highlights: true}}` →
 * `{results: [{title, url, highlights: [...]}]}` and `POST /contents` `{urls, text: true}` →
 * `{results: [{url, title, text}], statuses: [{id, status, error: {tag}}]}`, `x-api-key: <key>`.
 * A hit's description is its highlights joined (Hermes), else its summary or the start of its text.
 */
import type { BackendSettings } from "../backend-config.js";
import { joined, list, numbered, record, requestJson, text, type BackendPage, type SearchHit, type WebBackend } from "./http.js";

export function exaBackend(settings: BackendSettings): WebBackend {
  const label = "Exa";
  const headers = { "x-api-key": settings.apiKey ?? "" };
  return {
    label,
    async search(query, limit, signal): Promise<SearchHit[]> {
      const body = { query, numResults: Math.min(Math.max(limit, 1), 20), contents: { highlights: true } };
      const answer = record(await requestJson(label, `${settings.baseUrl}/search`, { method: "POST", headers, body }, signal));
      return numbered(
        list(answer.results).map((row) => {
          const hit = record(row);
          const description = joined(hit.highlights, " ") || text(hit.summary) || text(hit.text).slice(0, 500);
          return { title: text(hit.title), url: text(hit.url), description };
        }),
        limit,
      );
    },
    async extract(urls, signal): Promise<BackendPage[]> {
      const answer = record(await requestJson(label, `${settings.baseUrl}/contents`, { method: "POST", headers, body: { urls, text: true } }, signal));
      const pages: BackendPage[] = list(answer.results).map((row) => {
        const page = record(row);
        return { url: text(page.url) || text(page.id), title: text(page.title), content: text(page.text) };
      });
      for (const row of list(answer.statuses)) {
        const status = record(row);
        if (text(status.status) !== "error") continue;
        const url = text(status.id);
        if (pages.some((page) => page.url === url && page.content)) continue;
        const error = record(status.error);
        pages.push({ url, title: "", content: "", error: `extraction failed${text(error.tag) ? ` (${text(error.tag)})` : ""}` });
      }
      return pages;
    },
  };
}
