import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeWeb, type FakeWeb } from "../../../test/support/fake-web.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { redactRegisteredSecrets } from "../../config/redact.js";
import { configSchema, defaultConfig } from "../../config/schema.js";
import { resolveToolset } from "../toolsets.js";
import { selectBackend, webEnv } from "./backend-config.js";
import type { WebExtractResultDetails } from "./details.js";
import { describeWebExtract, describeWebSearch } from "./params.js";
import { webExtractTool } from "./web-extract.js";

let web: FakeWeb;
let home: string;
beforeAll(async () => {
  web = await startFakeWeb();
  home = mkdtempSync(join(tmpdir(), "hermes-web-tools-"));
});
afterAll(async () => {
  await web.close();
  rmSync(home, { recursive: true, force: true });
});

/** A context without any backend (the home has no .env), with `web:` settings. */
const direct = (settings: Record<string, unknown> = { allow_private_urls: true }) =>
  toolContext({ config: configSchema.parse({ web: settings }), hermesHome: home });
type Entry = { url: string; title: string; content: string; error: string | null };
const entries = (content: string): Entry[] => (JSON.parse(content) as { results: Entry[] }).results;

describe("titles", () => {
  it("name the query or the page", () => {
    expect(describeWebSearch({ query: "  rust\n ownership " })).toEqual({ title: "web search: rust ownership", locations: [] });
    expect(describeWebExtract({ urls: ["https://docs.example.com/guide/intro?x=1"] }).title).toBe("extract: docs.example.com/guide/intro");
    expect(describeWebExtract({ urls: ["https://example.com/", "https://b.example/x"] }).title).toBe("extract: example.com (+1 more)");
    expect(describeWebExtract({ urls: ["example.org/page"] }).title).toBe("extract: example.org/page");
  });
});

describe("web_extract without a backend", () => {
  it("reads a PDF as text", async () => {
    const result = await webExtractTool.execute({ urls: [web.siteUrl("doc.pdf")] }, direct());
    expect(entries(result.content)[0]).toEqual({
      url: web.siteUrl("doc.pdf"),
      title: "Quarterly report",
      content: "Quarterly report\nRevenue grew 12 percent in the third quarter.\nPrepared by the finance team.",
      error: null,
    });
  });

  it("refuses private addresses unless web.allow_private_urls is true", async () => {
    const before = web.siteHits.length;
    const result = await webExtractTool.execute({ urls: [web.siteUrl("article.html")] }, direct({}));
    expect(result.isError).toBe(true);
    expect(entries(result.content)[0]!.error).toMatch(/private or internal network address.*web\.allow_private_urls/);
    expect(web.siteHits.length).toBe(before);
  });

  it("refuses a redirect to the cloud metadata address, even with private URLs allowed", async () => {
    const url = web.siteUrl(`redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data/iam/security-credentials/")}`);
    const result = await webExtractTool.execute({ urls: [url] }, direct());
    expect(result.isError).toBe(true);
    expect(entries(result.content)[0]!.error).toMatch(/169\.254\.169\.254 is a cloud metadata or link-local address/);
  });

  it("honours web.blocked_domains, subdomains included", async () => {
    const result = await webExtractTool.execute(
      { urls: ["https://tracker.example/x", "https://cdn.tracker.example/y"] },
      direct({ allow_private_urls: true, blocked_domains: ["tracker.example"] }),
    );
    expect(entries(result.content).map((entry) => entry.error)).toEqual([
      "Blocked by website policy: 'tracker.example' matched rule 'tracker.example' (web.blocked_domains)",
      "Blocked by website policy: 'cdn.tracker.example' matched rule 'tracker.example' (web.blocked_domains)",
    ]);
  });

  it("cuts a long page without a model to summarise it, and says so", async () => {
    const result = await webExtractTool.execute({ urls: [web.siteUrl("long.html")] }, direct());
    const [entry] = entries(result.content);
    expect(entry!.content).toMatch(/\[\.\.\. page cut at 5,000 of [\d,]+ characters: no model is available here to summarise it \.\.\.\]$/);
    expect(result.details).toMatchObject({ via: "direct", pages: [{ treatment: "cut", title: "Infrastructure survey 2025" }] });
    expect((result.details as Extract<WebExtractResultDetails, { pages: unknown }>).pages[0]!.chars).toBeGreaterThan(55_000);
  });

  it("reports pages that fail one by one, and extracts at most 5 URLs", async () => {
    const urls = [web.siteUrl("status/404"), web.siteUrl("image.png"), "file:///etc/passwd", web.siteUrl("notes.txt"), web.siteUrl("notes.txt"), web.siteUrl("notes.txt")];
    const result = await webExtractTool.execute({ urls }, direct());
    const body = JSON.parse(result.content) as { results: Entry[]; skipped: string };
    expect(result.isError).toBeUndefined();
    expect(body.results).toHaveLength(5);
    expect(body.results.map((entry) => entry.error)).toEqual([
      "Blocked: only http and https URLs can be fetched, not file",
      `HTTP 404 from ${web.siteUrl("status/404")}`,
      "Could not read the page: unsupported content type image/png: only HTML pages, PDFs and text can be extracted",
      null,
      null,
    ]);
    expect(body.skipped).toBe("Only the first 5 URLs were extracted; call again for the other 1.");
  });

  it("asks for at least one URL", async () => {
    const result = await webExtractTool.execute({ urls: [" "] }, direct());
    expect(result).toMatchObject({ isError: true, details: { error: "urls is empty: pass 1 to 5 http(s) URLs" } });
  });
});

describe("availability", () => {
  const noKeys = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HERMES_HOME: home, ...extra });

  it("leaves web_search out, naming the keys that would enable it; web_extract stays", () => {
    const resolved = resolveToolset(defaultConfig(), noKeys());
    expect(resolved.tools.map((tool) => tool.name)).toContain("web_extract");
    expect(resolved.tools.map((tool) => tool.name)).not.toContain("web_search");
    const reason = resolved.unavailable.find((entry) => entry.tool === "web_search")?.reason;
    expect(reason).toMatch(/FIRECRAWL_API_KEY.*PARALLEL_API_KEY.*TAVILY_API_KEY.*EXA_API_KEY.*web\.searxng_url/);
  });

  it("offers web_search with a key in the environment or $HERMES_HOME/.env, or a SearXNG URL", () => {
    const names = (config: ReturnType<typeof defaultConfig>, env: NodeJS.ProcessEnv) => resolveToolset(config, env).tools.map((tool) => tool.name);
    expect(names(defaultConfig(), noKeys({ EXA_API_KEY: "exa-key-from-env-000" }))).toContain("web_search");
    expect(names(configSchema.parse({ web: { searxng_url: "http://127.0.0.1:8888" } }), noKeys())).toContain("web_search");
    const keyed = mkdtempSync(join(tmpdir(), "hermes-web-env-"));
    try {
      writeFileSync(join(keyed, ".env"), "TAVILY_API_KEY=tvly-from-dotenv-123456789\n");
      expect(names(defaultConfig(), { PATH: process.env.PATH, HERMES_HOME: keyed })).toContain("web_search");
      expect(redactRegisteredSecrets("key tvly-from-dotenv-123456789")).not.toContain("from-dotenv");
    } finally {
      rmSync(keyed, { recursive: true, force: true });
    }
  });

  it("picks web.backend, else the first configured in Hermes' order", () => {
    const env = { FIRECRAWL_API_KEY: "fc-1234567890abcdef", EXA_API_KEY: "exa-1234567890abcdef" };
    expect(selectBackend(defaultConfig(), env)).toMatchObject({ backend: { name: "firecrawl", baseUrl: "https://api.firecrawl.dev" } });
    expect(selectBackend(configSchema.parse({ web: { backend: "Exa" } }), env)).toMatchObject({ backend: { name: "exa", apiKey: env.EXA_API_KEY } });
    expect(selectBackend(configSchema.parse({ web: { backend: "tavily" } }), env)).toEqual({ reason: "web.backend is tavily but TAVILY_API_KEY is not set" });
    expect(selectBackend(defaultConfig(), { FIRECRAWL_API_URL: "http://firecrawl.lan:3002/" })).toMatchObject({ backend: { name: "firecrawl", baseUrl: "http://firecrawl.lan:3002" } });
    expect(selectBackend(defaultConfig(), { PARALLEL_API_KEY: "par-1234567890", TAVILY_API_KEY: "tvly-1234567890" })).toMatchObject({ backend: { name: "parallel" } });
    const merged = webEnv({ EXA_API_KEY: "exa-from-environment-01" }, home);
    expect(merged.EXA_API_KEY).toBe("exa-from-environment-01");
    expect(redactRegisteredSecrets("exa-from-environment-01")).not.toContain("environment");
  });
});
