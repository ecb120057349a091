/**
 * Firecrawl (https://docs.firecrawl.dev): `POST /v2/search` `{query, limit}` →
 * `{success, data: {web: [{url, title, description, position}]}}` and `POST /v2/scrape`
 * `{url, formats: ["markdown"]}` → `{success, data: {markdown, metadata: {title, sourceURL,
 * statusCode}}}`, `Authorization: Bearer <key>` (omitted for a keyless self-hosted instance).
 * A self-hosted instance that only speaks v1 (404 on /v2) is asked on /v1, whose search answers
 * `data` as a plain list. Pages are scraped one by one, as Hermes does.
 */
import type { BackendSettings } from "../backend-config.js";
import { BackendError, list, numbered, record, requestJson, text, type BackendPage, type SearchHit, type WebBackend } from "./http.js";

/** Hermes' wait before Firecrawl snapshots a page (content that arrives after first render). */
const SCRAPE_WAIT_MS = 3000;

export function firecrawlBackend(settings: BackendSettings): WebBackend {
  const label = "Firecrawl";
  const headers: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  let version: "v2" | "v1" = "v2";
  const post = async (path: string, body: unknown, signal: AbortSignal): Promise<Record<string, unknown>> => {
    try {
      return record(await requestJson(label, `${settings.baseUrl}/${version}${path}`, { method: "POST", headers, body }, signal));
    } catch (error) {
      if (!(error instanceof BackendError) || error.status !== 404 || version === "v1") throw error;
      version = "v1";
      return record(await requestJson(label, `${settings.baseUrl}/v1${path}`, { method: "POST", headers, body }, signal));
    }
  };
  return {
    label,
    async search(query, limit, signal): Promise<SearchHit[]> {
      const answer = await post("/search", { query, limit }, signal);
      if (answer.success === false) throw new BackendError(`${label} search failed: ${text(answer.error) || "no reason given"}`);
      const data = answer.data;
      const rows = Array.isArray(data) ? data : list(record(data).web ?? record(data).results ?? answer.web);
      return numbered(
        rows.map((row) => {
          const hit = record(row);
          return { title: text(hit.title), url: text(hit.url), description: text(hit.description ?? hit.snippet) };
        }),
        limit,
      );
    },
    async extract(urls, signal): Promise<BackendPage[]> {
      const pages: BackendPage[] = [];
      for (const url of urls) {
        try {
          const answer = await post("/scrape", { url, formats: ["markdown"], onlyMainContent: true, waitFor: SCRAPE_WAIT_MS }, signal);
          const data = record(answer.data);
          const metadata = record(data.metadata);
          if (answer.success === false || text(metadata.error)) {
            pages.push({ url, title: "", content: "", error: text(answer.error) || text(metadata.error) || "scrape failed" });
            continue;
          }
          const finalUrl = text(metadata.sourceURL) || text(metadata.url) || url;
          pages.push({ url: finalUrl, title: text(metadata.title), content: text(data.markdown) || text(data.html) });
        } catch (error) {
          if (!(error instanceof BackendError)) throw error;
          pages.push({ url, title: "", content: "", error: error.message });
        }
      }
      return pages;
    },
  };
}
