import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeWeb, type FakeBackendName, type FakeWeb } from "../../../test/support/fake-web.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { configSchema } from "../../config/schema.js";
import type { ToolContext } from "../types.js";
import type { WebExtractResultDetails } from "./details.js";
import { webExtractTool } from "./web-extract.js";
import { webSearchTool } from "./web-search.js";

/** Each backend's real wire format, through the tools, against the fake backends on 127.0.0.1. */
let web: FakeWeb;
let home: string;
const KEYS: Record<string, string> = {
  FIRECRAWL_API_KEY: "fc-test-firecrawl-key-0001",
  PARALLEL_API_KEY: "par-test-parallel-key-0002",
  TAVILY_API_KEY: "tvly-test-tavily-key-0003",
  EXA_API_KEY: "exa-test-exa-key-00000004",
};
beforeAll(async () => {
  web = await startFakeWeb();
  home = mkdtempSync(join(tmpdir(), "hermes-web-backends-"));
  writeFileSync(join(home, ".env"), Object.entries(KEYS).map(([key, value]) => `${key}=${value}`).join("\n"));
});
afterAll(async () => {
  await web.close();
  rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  web.requests.length = 0;
  web.firecrawlV1Only = false;
  web.hits = [
    { title: "Rust ownership", url: "https://doc.rust-lang.org/book/ch04-01.html", snippet: "Ownership is a set of rules." },
    { title: "Borrowing", url: "https://doc.rust-lang.org/book/ch04-02.html", snippet: "References and borrowing." },
    ...Array.from({ length: 6 }, (_, index) => ({ title: `Extra ${index}`, url: `https://extra.example/${index}`, snippet: `extra ${index}` })),
  ];
  web.scraped.clear();
});

function context(backend: FakeBackendName, web_: Record<string, unknown> = {}): ToolContext {
  const urlKey = backend === "searxng" ? "searxng_url" : `${backend}_api_url`;
  const config = configSchema.parse({ web: { backend, [urlKey]: web.backendUrl(backend), allow_private_urls: true, ...web_ } });
  return toolContext({ config, hermesHome: home });
}

const BACKENDS: FakeBackendName[] = ["firecrawl", "parallel", "tavily", "exa", "searxng"];

describe("web_search through each backend", () => {
  it.each(BACKENDS)("%s: answers Hermes' JSON with at most 5 results", async (backend) => {
    const result = await webSearchTool.execute({ query: "rust ownership" }, context(backend));
    expect(result.isError).toBeUndefined();
    const body = JSON.parse(result.content) as { success: boolean; data: { web: Array<Record<string, unknown>> } };
    expect(body.success).toBe(true);
    expect(body.data.web).toHaveLength(5);
    const description = backend === "parallel" ? "Ownership is a set of rules. (second excerpt)" : "Ownership is a set of rules.";
    expect(body.data.web[0]).toEqual({ title: "Rust ownership", url: "https://doc.rust-lang.org/book/ch04-01.html", description, position: 1 });
    expect(Object.keys(body.data.web[0]!)).toEqual(["title", "url", "description", "position"]);
    expect(body.data.web[4]).toMatchObject({ title: "Extra 2", position: 5 });
    expect(result.details).toMatchObject({ query: "rust ownership", results: expect.arrayContaining([expect.objectContaining({ title: "Borrowing" })]) });
  });

  it("sends each backend's own request shape and credentials", async () => {
    for (const backend of BACKENDS) await webSearchTool.execute({ query: "q1" }, context(backend));
    const by = (name: FakeBackendName) => web.requests.find((request) => request.backend === name)!;
    expect(by("firecrawl")).toMatchObject({ method: "POST", path: "/v2/search", body: { query: "q1", limit: 5 } });
    expect(by("firecrawl").headers.authorization).toBe(`Bearer ${KEYS.FIRECRAWL_API_KEY}`);
    expect(by("parallel")).toMatchObject({ path: "/v1/search", body: { objective: "q1", search_queries: ["q1"], advanced_settings: { max_results: 5 } } });
    expect(by("parallel").headers["x-api-key"]).toBe(KEYS.PARALLEL_API_KEY);
    expect(by("tavily")).toMatchObject({ path: "/search", body: { query: "q1", max_results: 5, include_raw_content: false } });
    expect(by("tavily").headers.authorization).toBe(`Bearer ${KEYS.TAVILY_API_KEY}`);
    expect(by("exa")).toMatchObject({ path: "/search", body: { query: "q1", numResults: 5, contents: { highlights: true } } });
    expect(by("exa").headers["x-api-key"]).toBe(KEYS.EXA_API_KEY);
    expect(by("searxng")).toMatchObject({ method: "GET", path: "/search?q=q1&format=json&pageno=1" });
  });

  it("talks v1 to a self-hosted Firecrawl that has no v2", async () => {
    web.firecrawlV1Only = true;
    const result = await webSearchTool.execute({ query: "old" }, context("firecrawl"));
    expect(JSON.parse(result.content).data.web[0]).toMatchObject({ title: "Rust ownership", position: 1 });
    expect(web.requests.map((request) => request.path)).toEqual(["/v2/search", "/v1/search"]);
  });

  it("reports a failing backend as an error the model can read", async () => {
    const result = await webSearchTool.execute({ query: "q" }, context("tavily", { tavily_api_url: `${web.baseUrl}/nowhere` }));
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content)).toEqual({ success: false, error: expect.stringMatching(/^Error searching web: Tavily returned HTTP 404/) });
  });
});

describe("web_extract through each backend that extracts", () => {
  it.each(["firecrawl", "parallel", "tavily", "exa"] as const)("%s: returns the page and reports the one it could not read", async (backend) => {
    const good = web.siteUrl("backend-page");
    const bad = web.siteUrl("missing-page");
    web.scraped.set(good, { title: "Backend page", markdown: "# Backend page\n\nContent the backend extracted." });
    const result = await webExtractTool.execute({ urls: [good, bad] }, context(backend));
    const body = JSON.parse(result.content) as { note: string; results: Array<{ url: string; title: string; content: string; error: string | null }> };
    expect(body.note).toMatch(/untrusted/);
    const page = body.results.find((entry) => entry.url === good)!;
    expect(page).toEqual({ url: good, title: backend === "tavily" ? "" : "Backend page", content: "# Backend page\n\nContent the backend extracted.", error: null });
    expect(body.results.find((entry) => entry.url === bad)?.error).toBeTruthy();
    const details = result.details as Extract<WebExtractResultDetails, { via: string }>;
    expect(details.via.toLowerCase()).toBe(backend);
    expect(web.siteHits).not.toContain("backend-page");
  });

  it("vets URLs before a backend sees them", async () => {
    const result = await webExtractTool.execute({ urls: ["http://169.254.169.254/latest/meta-data/"] }, context("firecrawl"));
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content).results[0].error).toMatch(/cloud metadata/);
    expect(web.requests).toHaveLength(0);
  });

  it("fetches pages on this machine's network itself when the backend is out on the internet", async () => {
    const result = await webExtractTool.execute({ urls: [web.siteUrl("notes.txt")] }, context("firecrawl", { firecrawl_api_url: "https://api.firecrawl.invalid" }));
    expect(JSON.parse(result.content).results[0]).toMatchObject({ content: "Plain notes: remember the milk.", error: null });
    expect(result.details).toMatchObject({ via: "direct" });
  });

  it("fetches directly when the backend only searches (SearXNG)", async () => {
    const result = await webExtractTool.execute({ urls: [web.siteUrl("notes.txt")] }, context("searxng"));
    expect(JSON.parse(result.content).results[0]).toMatchObject({ content: "Plain notes: remember the milk.", error: null });
    expect(result.details).toMatchObject({ via: "direct" });
  });
});
