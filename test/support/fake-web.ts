/**
 * The web on 127.0.0.1 for tests: one HTTP server that answers as each web backend, in the wire
 * format its public docs give, and serves real pages.
 *
 * Backends, each under its own prefix (point `web.<name>_api_url` / `web.searxng_url` at
 * `backendUrl(name)`):
 * - Firecrawl  `POST /firecrawl/v2/search`, `/v2/scrape` (and `/v1/*` when `firecrawlV1Only`)
 * - Parallel   `POST /parallel/v1/search`, `/v1/extract`
 * - Tavily     `POST /tavily/search`, `/extract`
 * - Exa        `POST /exa/search`, `/contents`
 * - SearXNG    `GET /searxng/search?q=…&format=json` (403 HTML for any other format)
 * Searches answer `hits`; extracts answer `scraped` (by URL; unknown URLs are failures in the
 * backend's own failure shape). Every backend request is recorded with its headers and body.
 *
 * Pages under `/site/`: `article.html` (an article with navigation, sidebar ad, footer and
 * scripts), `long.html` (an article of about 60,000 characters), `doc.pdf` (a one-page PDF made by
 * `makePdf`), `notes.txt`, `image.png`, `redirect?to=<url>` (302 to `to`), `status/<code>`.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody, sendJson } from "./http-json.js";

export type FakeBackendName = "firecrawl" | "parallel" | "tavily" | "exa" | "searxng";

export interface FakeHit {
  title: string;
  url: string;
  snippet: string;
}

export interface FakeWebRequest {
  backend: FakeBackendName;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke into arbitrary request shapes
  body: any;
}

export interface FakeWeb {
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  backendUrl(name: FakeBackendName): string;
  /** `${baseUrl}/site/${path}` */
  siteUrl(path: string): string;
  /** What every backend's search answers, best first. */
  hits: FakeHit[];
  /** What every backend's extract answers, by URL. */
  scraped: Map<string, { title: string; markdown: string }>;
  /** Firecrawl answers 404 on /v2 (an older self-hosted instance). */
  firecrawlV1Only: boolean;
  requests: FakeWebRequest[];
  /** Requests to `/site/`, by path (with query). */
  siteHits: string[];
  close(): Promise<void>;
}

const FIXTURES = new URL("../fixtures/web/", import.meta.url);

export async function startFakeWeb(): Promise<FakeWeb> {
  const web = { hits: [], scraped: new Map(), firecrawlV1Only: false, requests: [], siteHits: [] } as unknown as FakeWeb;
  const server = createServer((req, res) => {
    handle(web, req, res).catch((error: unknown) => sendJson(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  web.baseUrl = `http://127.0.0.1:${port}`;
  web.backendUrl = (name) => `${web.baseUrl}/${name}`;
  web.siteUrl = (path) => `${web.baseUrl}/site/${path}`;
  web.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return web;
}

async function handle(web: FakeWeb, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://fake");
  const [, prefix = "", ...rest] = url.pathname.split("/");
  if (prefix === "site") return site(web, `${rest.join("/")}${url.search}`, res);
  const backend = prefix as FakeBackendName;
  const path = `/${rest.join("/")}`;
  const body = req.method === "POST" ? await readBody(req) : undefined;
  web.requests.push({ backend, method: req.method ?? "GET", path: `${path}${url.search}`, headers: req.headers, body });
  switch (backend) {
    case "firecrawl":
      return firecrawl(web, path, body, res);
    case "parallel":
      return parallel(web, path, body, res);
    case "tavily":
      return tavily(web, path, body, res);
    case "exa":
      return exa(web, path, body, res);
    case "searxng":
      return searxng(web, path, url.searchParams, res);
    default:
      sendJson(res, 404, { error: `no such backend: ${prefix}` });
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies as the client sent them
type Body = any;

function firecrawl(web: FakeWeb, path: string, body: Body, res: ServerResponse): void {
  const version = path.split("/")[1];
  if (version === "v2" && web.firecrawlV1Only) return sendJson(res, 404, { success: false, error: "Not found" });
  const rows = web.hits.slice(0, body?.limit ?? 5).map((hit, index) => ({ url: hit.url, title: hit.title, description: hit.snippet, position: index + 1 }));
  if (path.endsWith("/search")) return sendJson(res, 200, { success: true, data: version === "v1" ? rows : { web: rows } });
  if (path.endsWith("/scrape")) {
    const page = web.scraped.get(body?.url);
    if (!page) return sendJson(res, 200, { success: false, error: `Failed to scrape ${body?.url}: 404 Not Found` });
    return sendJson(res, 200, { success: true, data: { markdown: page.markdown, metadata: { title: page.title, sourceURL: body.url, url: body.url, statusCode: 200 } } });
  }
  sendJson(res, 404, { success: false, error: "Not found" });
}

function parallel(web: FakeWeb, path: string, body: Body, res: ServerResponse): void {
  if (path === "/v1/search") {
    const max = body?.advanced_settings?.max_results ?? 10;
    const results = web.hits.slice(0, max).map((hit) => ({ url: hit.url, title: hit.title, publish_date: null, excerpts: [hit.snippet, "(second excerpt)"] }));
    return sendJson(res, 200, { search_id: "search_0123", results, warnings: null, usage: [{ name: "sku_search", count: 1 }] });
  }
  if (path === "/v1/extract") {
    const urls: string[] = body?.urls ?? [];
    const results = urls.flatMap((url) => {
      const page = web.scraped.get(url);
      return page ? [{ url, title: page.title, publish_date: null, excerpts: [page.markdown.slice(0, 100)], full_content: page.markdown }] : [];
    });
    const errors = urls.filter((url) => !web.scraped.has(url)).map((url) => ({ url, error_type: "fetch_error", http_status_code: 404, content: "Page not found" }));
    return sendJson(res, 200, { extract_id: "extract_0123", results, errors, warnings: null });
  }
  sendJson(res, 404, { error: { message: "Not found" } });
}

function tavily(web: FakeWeb, path: string, body: Body, res: ServerResponse): void {
  if (path === "/search") {
    const results = web.hits.slice(0, body?.max_results ?? 5).map((hit, index) => ({ title: hit.title, url: hit.url, content: hit.snippet, score: 0.9 - index / 10, raw_content: null }));
    return sendJson(res, 200, { query: body?.query, follow_up_questions: null, answer: null, images: [], results, response_time: 0.42 });
  }
  if (path === "/extract") {
    const urls: string[] = body?.urls ?? [];
    const results = urls.flatMap((url) => {
      const page = web.scraped.get(url);
      return page ? [{ url, raw_content: page.markdown, images: [] }] : [];
    });
    const failed_results = urls.filter((url) => !web.scraped.has(url)).map((url) => ({ url, error: "Failed to fetch url" }));
    return sendJson(res, 200, { results, failed_results, response_time: 0.3 });
  }
  sendJson(res, 404, { detail: { error: "Not found" } });
}

function exa(web: FakeWeb, path: string, body: Body, res: ServerResponse): void {
  if (path === "/search") {
    const results = web.hits.slice(0, body?.numResults ?? 10).map((hit, index) => ({
      id: hit.url,
      title: hit.title,
      url: hit.url,
      publishedDate: "2025-01-01T00:00:00.000Z",
      author: null,
      highlights: [hit.snippet],
      highlightScores: [0.8 - index / 10],
    }));
    return sendJson(res, 200, { requestId: "req_0123", resolvedSearchType: "neural", results, costDollars: { total: 0.005 } });
  }
  if (path === "/contents") {
    const urls: string[] = body?.urls ?? [];
    const results = urls.flatMap((url) => {
      const page = web.scraped.get(url);
      return page ? [{ id: url, url, title: page.title, text: page.markdown }] : [];
    });
    const statuses = urls.map((url) => (web.scraped.has(url) ? { id: url, status: "success" } : { id: url, status: "error", error: { tag: "CRAWL_NOT_FOUND", httpStatusCode: 404 } }));
    return sendJson(res, 200, { requestId: "req_0124", results, statuses });
  }
  sendJson(res, 404, { error: "Not found" });
}

function searxng(web: FakeWeb, path: string, query: URLSearchParams, res: ServerResponse): void {
  if (path !== "/search") return sendJson(res, 404, { error: "Not found" });
  if (query.get("format") !== "json") {
    res.writeHead(403, { "content-type": "text/html" });
    res.end("<html><body>403 Forbidden</body></html>");
    return;
  }
  // The best hit has the highest score but comes last, so a client that does not sort by score gets the order wrong.
  const results = web.hits
    .map((hit, index) => ({ url: hit.url, title: hit.title, content: hit.snippet, engine: "duckduckgo", engines: ["duckduckgo"], score: web.hits.length - index, category: "general" }))
    .reverse();
  sendJson(res, 200, { query: query.get("q"), number_of_results: results.length, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] });
}

function site(web: FakeWeb, path: string, res: ServerResponse): void {
  web.siteHits.push(path);
  const [name = "", search = ""] = path.split("?");
  if (name === "article.html") return send(res, 200, "text/html; charset=utf-8", readFileSync(new URL("article.html", FIXTURES)));
  if (name === "long.html") return send(res, 200, "text/html; charset=utf-8", longArticle());
  if (name === "doc.pdf") return send(res, 200, "application/pdf", makePdf(["Quarterly report", "Revenue grew 12 percent in the third quarter.", "Prepared by the finance team."]));
  if (name === "notes.txt") return send(res, 200, "text/plain; charset=utf-8", "Plain notes: remember the milk.\n");
  if (name === "image.png") return send(res, 200, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
  if (name === "redirect") {
    res.writeHead(302, { location: new URLSearchParams(search).get("to") ?? "/" });
    res.end();
    return;
  }
  const status = /^status\/(\d{3})$/.exec(name);
  if (status) return send(res, Number(status[1]), "text/html", `<html><body>status ${status[1]}</body></html>`);
  send(res, 404, "text/html", "<html><body>Not found</body></html>");
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** An article page whose text is about 60,000 characters: 120 distinct paragraphs. */
export function longArticle(): string {
  const paragraphs = Array.from(
    { length: 120 },
    (_, index) =>
      `<p>Section ${index + 1} of the survey: the team measured cache hit rates, queue depths and tail latency for workload ${index + 1}, ` +
      `and found that batching requests in groups of ${index + 8} reduced the ninety-ninth percentile latency by ${index % 17} percent ` +
      `while keeping throughput steady across every region they tested during the quarter. Operators noted that the change needed no ` +
      `client upgrades, that rollback took under a minute, and that the dashboards for workload ${index + 1} stayed green for the whole week.</p>`,
  );
  return `<!doctype html><html><head><title>Infrastructure survey 2025</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>Infrastructure survey 2025</h1>${paragraphs.join("\n")}</article></main><footer>Footer</footer></body></html>`;
}

/** A minimal valid one-page PDF (Helvetica text, one line per entry), byte offsets and xref exact. */
export function makePdf(lines: string[]): Buffer {
  const escape = (text: string): string => text.replace(/[\\()]/g, (char) => `\\${char}`);
  const stream = ["BT", "/F1 12 Tf", "16 TL", "72 720 Td", ...lines.map((line, index) => `${index ? "T* " : ""}(${escape(line)}) Tj`), "ET"].join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
    "<< /Title (Quarterly report) /Producer (hermes-acp tests) >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
