import { describe, expect, it } from "vitest";
import { toolEndEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import { prepareToolCall, type PreparedToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { WebExtractDetails, WebSearchDetails } from "../../tools/web/details.js";
import { webExtractTool } from "../../tools/web/web-extract.js";
import { webSearchTool } from "../../tools/web/web-search.js";
import { toolEndUpdate, toolStartUpdate } from "../tool-render.js";

const TOOLS = new ToolRegistry([webSearchTool, webExtractTool]);
const prepared = (name: string, args: unknown): PreparedToolCall => {
  const call: ToolCall = { id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } };
  return prepareToolCall(call, TOOLS, { cwd: "/w" });
};
const text = (update: unknown): string =>
  ((update as { content?: Array<{ content?: { text?: string } }> }).content ?? []).map((block) => block.content?.text ?? "").join("\n");

describe("web_search in the editor", () => {
  it("starts as a fetch titled with the query and lists the results with links", () => {
    const call = prepared("web_search", { query: "rust ownership" });
    expect(toolStartUpdate(toolStartEvent(call))).toMatchObject({ kind: "fetch", title: "web search: rust ownership", locations: [] });
    const details: WebSearchDetails = {
      query: "rust ownership",
      backend: "Tavily",
      results: [{ title: "The [Rust] book", url: "https://doc.rust-lang.org/book/(ch4)", description: "Ownership is a set of rules." }],
    };
    const update = toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details }));
    expect(update).toMatchObject({ status: "completed" });
    expect(text(update)).toBe("Web search results for `rust ownership` (Tavily)\n\n1. [The \\[Rust\\] book](https://doc.rust-lang.org/book/%28ch4%29)\n   Ownership is a set of rules.");
  });

  it("shows a failure as failed", () => {
    const update = toolEndUpdate(toolEndEvent(prepared("web_search", { query: "q" }), { content: "{}", isError: true, details: { error: "Error searching web: Tavily returned HTTP 401" } }));
    expect(update).toMatchObject({ status: "failed" });
    expect(text(update)).toBe("Web search failed: Error searching web: Tavily returned HTTP 401");
  });
});

describe("web_extract in the editor", () => {
  it("names the page in its title, and shows each page's size, treatment and start, or its error", () => {
    const call = prepared("web_extract", { urls: ["https://blog.example/posts/rust", "http://169.254.169.254/"] });
    expect(toolStartUpdate(toolStartEvent(call))).toMatchObject({ kind: "fetch", title: "extract: blog.example/posts/rust (+1 more)" });
    const details: WebExtractDetails = {
      via: "direct",
      pages: [
        { url: "https://blog.example/posts/rust", title: "Rust ownership", chars: 61_234, treatment: "summarized", preview: "## Digest\n- one owner" },
        { url: "http://169.254.169.254/", title: "", chars: 0, error: "Blocked: 169.254.169.254 is a cloud metadata or link-local address" },
      ],
    };
    const update = toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details }));
    expect(update).toMatchObject({ status: "completed" });
    expect(text(update)).toBe(
      [
        "Read 1 of 2 pages (fetched directly)",
        "",
        "### [Rust ownership](https://blog.example/posts/rust)",
        "blog.example/posts/rust · 61,234 chars · summarised by the model",
        "```markdown\n## Digest\n- one owner\n```",
        "",
        "### <http://169.254.169.254/>",
        "Failed: Blocked: 169.254.169.254 is a cloud metadata or link-local address",
      ].join("\n"),
    );
  });

  it("fails when no page could be read, and cuts each page's start for display", () => {
    const call = prepared("web_extract", { urls: "https://x.example" });
    const failed = toolEndUpdate(toolEndEvent(call, { content: "{}", isError: true, details: { via: "Firecrawl", pages: [{ url: "https://x.example", title: "", chars: 0, error: "HTTP 500" }] } }));
    expect(failed).toMatchObject({ status: "failed" });
    const pages = Array.from({ length: 5 }, (_, index) => ({ url: `https://x.example/${index}`, title: `Page ${index}`, chars: 9_000, treatment: "cut" as const, preview: "p".repeat(1_500) }));
    const long = text(toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details: { via: "direct", pages } })));
    expect(long.length).toBeLessThanOrEqual(7_000);
    expect(long).toContain(`${"p".repeat(800)}\n…\n\`\`\``);
    expect(long).not.toContain("p".repeat(801));
  });
});
