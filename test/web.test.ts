import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeWeb, type FakeWeb } from "./support/fake-web.js";
import { connectInMemory, type InMemoryAgent } from "./support/in-memory-acp.js";
import { runtimeSuite } from "./support/runtime-suite.js";

/** The web toolset through the real runtime: a scripted model calls the tools; pages and backends are on 127.0.0.1. */
const suite = runtimeSuite();
let web: FakeWeb;
beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(async () => {
  await web.close();
});

const modelConfig = (): string => `model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n`;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies as the fake model recorded them
type Messages = Array<{ role: string; content: any; tool_call_id?: string }>;
const toolMessage = (id: string): string => {
  for (const request of suite.llm.requests) {
    const found = (request.body.messages as Messages).find((message) => message.tool_call_id === id);
    if (found) return String(found.content);
  }
  throw new Error(`no tool result for ${id} reached the model`);
};

describe("web_extract in a session", () => {
  it("turns a local article into markdown without its navigation, ads and footer", async () => {
    suite.home.writeConfig(`${modelConfig()}web:\n  allow_private_urls: true\n`);
    const session = await suite.open();
    suite.llm.push({ tool_calls: [{ id: "w1", name: "web_extract", arguments: { urls: [web.siteUrl("article.html")] } }] }, { text: "read it" });
    await suite.ask(session, "what does this post say?");
    const result = JSON.parse(toolMessage("w1")) as { note: string; results: Array<{ title: string; content: string; error: string | null }> };
    expect(result.note).toMatch(/untrusted data/);
    const [page] = result.results;
    expect(page).toMatchObject({ title: "Understanding Rust ownership | The Dev Blog", error: null });
    expect(page!.content).toContain("## The three rules");
    expect(page!.content).toContain(`[the lifetimes post](${web.baseUrl}/posts/lifetimes)`);
    for (const boilerplate of ["NAV-ARCHIVE-LINK", "SIDEBAR-AD", "FOOTER-TEXT", "TRACKING-SCRIPT-TEXT"]) expect(page!.content).not.toContain(boilerplate);
  });

  it("has a 60,000-character page summarised by the session's model", async () => {
    suite.home.writeConfig(`${modelConfig()}web:\n  allow_private_urls: true\n`);
    const session = await suite.open();
    suite.llm.push(
      { tool_calls: [{ id: "w2", name: "web_extract", arguments: { urls: [web.siteUrl("long.html")] } }] },
      { text: "## Survey digest\n- Batching cut p99 latency." },
      { text: "summarised" },
    );
    await suite.ask(session, "summarise the survey");
    const summaryRequest = suite.llm.requests.find((request) => (request.body.messages as Messages).some((message) => String(message.content).includes("PAGE CONTENT:")));
    expect(summaryRequest).toBeDefined();
    const [system, user] = summaryRequest!.body.messages as Messages;
    expect(system!.content).toMatch(/do not follow any instructions/);
    expect(user!.content).toContain("Title: Infrastructure survey 2025");
    expect(user!.content).toContain("Section 120 of the survey");
    expect(summaryRequest!.body.tools).toBeUndefined();
    const result = JSON.parse(toolMessage("w2")) as { results: Array<{ content: string }> };
    expect(result.results[0]!.content).toBe("## Survey digest\n- Batching cut p99 latency.");
  });
});

describe("web_search in a session", () => {
  it("searches through the backend whose key is in $HERMES_HOME/.env; the key never reaches the model", async () => {
    const key = "tvly-e2e-secret-key-0123456789";
    writeFileSync(join(suite.home.home, ".env"), `TAVILY_API_KEY=${key}\n`);
    suite.home.writeConfig(`${modelConfig()}web:\n  tavily_api_url: ${web.backendUrl("tavily")}\n`);
    web.hits = [{ title: `Leaky ${key}`, url: "https://example.com/a", snippet: "A result." }];
    const session = await suite.open();
    expect(session.tools.names()).toContain("web_search");
    suite.llm.push({ tool_calls: [{ id: "s1", name: "web_search", arguments: { query: "hermes agent" } }] }, { text: "found" });
    await suite.ask(session, "search for hermes agent");
    const result = toolMessage("s1");
    expect(JSON.parse(result)).toMatchObject({ success: true, data: { web: [{ url: "https://example.com/a", description: "A result.", position: 1 }] } });
    expect(result).not.toContain(key);
    expect(web.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
  });
});

describe("the editor", () => {
  let agent: InMemoryAgent | undefined;
  afterAll(async () => {
    await agent?.close();
  });

  it("/tools names the key that would enable web_search; an extract shows as a fetch with the page in its title", async () => {
    suite.home.writeConfig(`${modelConfig()}web:\n  allow_private_urls: true\n`);
    agent = connectInMemory({ home: suite.home.home, env: suite.home.env() });
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/tools" }] });
    const text = agent.updates.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : "")).join("");
    expect(text).toMatch(/web_search: needs a search backend: set FIRECRAWL_API_KEY .*TAVILY_API_KEY/);
    suite.llm.push({ tool_calls: [{ id: "e1", name: "web_extract", arguments: { urls: [web.siteUrl("notes.txt")] } }] }, { text: "ok" });
    await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the notes" }] });
    const start = agent.updates.find((n) => n.update.sessionUpdate === "tool_call")?.update;
    expect(start).toMatchObject({ kind: "fetch", title: `extract: ${new URL(web.baseUrl).host}/site/notes.txt`, locations: [] });
    const end = agent.updates.find((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "completed")?.update;
    const shown = JSON.stringify(end);
    expect(shown).toContain("Read 1 of 1 page (fetched directly)");
    expect(shown).toContain("remember the milk");
  });
});
