/**
 * The web tools' parameters, limits and editor titles, shared by the tool definitions
 * (`web-search.ts`, `web-extract.ts`, loaded at start-up) and their bodies (`search-run.ts`,
 * `extract-run.ts`, loaded on first call).
 */
import { z } from "zod";
import type { ToolDescription } from "../types.js";

/** Results per search (Hermes' fixed limit). */
export const WEB_SEARCH_LIMIT = 5;
/** URLs per `web_extract` call (Hermes' limit; more are dropped with a note). */
export const MAX_EXTRACT_URLS = 5;

export const webSearchParams = z.lazy(() => z.object({
  query: z.string().describe("The search query"),
}));
export type WebSearchArgs = z.infer<typeof webSearchParams>;

/** `urls` is a list; a single URL string is taken as a list of one (models send either). */
export const webExtractParams = z.lazy(() => z.object({
  urls: z
    .preprocess((value) => (typeof value === "string" ? [value] : value), z.array(z.string()))
    .describe(`http(s) URLs to read (at most ${MAX_EXTRACT_URLS})`),
}));
export type WebExtractArgs = z.infer<typeof webExtractParams>;

/** `web search: <query>` on one line. */
export function describeWebSearch(args: WebSearchArgs): ToolDescription {
  return { title: `web search: ${oneLine(args.query, 120)}`, locations: [] };
}

/** `extract: <host/path>`, with `(+N more)` for further URLs. */
export function describeWebExtract(args: WebExtractArgs): ToolDescription {
  const urls = extractUrlList(args);
  if (urls.length === 0) return { title: "extract", locations: [] };
  const more = urls.length > 1 ? ` (+${urls.length - 1} more)` : "";
  return { title: `extract: ${hostPath(urls[0]!)}${more}`, locations: [] };
}

/** The URLs as given, trimmed, empty ones dropped. */
export function extractUrlList(args: WebExtractArgs): string[] {
  return args.urls.map((url) => url.trim()).filter(Boolean);
}

/**
 * A URL as the model probably meant it: whitespace after `scheme://` removed, `https://` added to
 * a bare `example.com/path`. Anything else is left for the URL policy to judge.
 */
export function normalizeUrl(raw: string): string {
  const url = raw.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)\s+/i, "$1");
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^[\w-]+(\.[\w-]+)+:\d+/i.test(url)) return url;
  return /^[\w-]+(\.[\w-]+)+([/:?#]|$)/.test(url) ? `https://${url}` : url;
}

/** `host/path` of a URL (no scheme, query or trailing slash), or the text cut short. */
export function hostPath(raw: string): string {
  try {
    const url = new URL(normalizeUrl(raw));
    return oneLine(`${url.host}${url.pathname === "/" ? "" : url.pathname}`, 100);
  } catch {
    return oneLine(raw, 100);
  }
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
