import { describe, expect, it } from "vitest";
import { toolEndEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import { BROWSER_TOOLS } from "../../tools/browser/tools.js";
import { prepareToolCall, type PreparedToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import { toolEndUpdate, toolStartUpdate } from "../tool-render.js";

const TOOLS = new ToolRegistry(BROWSER_TOOLS);
const prepared = (name: string, args: unknown): PreparedToolCall => {
  const call: ToolCall = { id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } };
  return prepareToolCall(call, TOOLS, { cwd: "/w" });
};
type Block = { content?: { type: string; text?: string; data?: string; mimeType?: string } };
const blocks = (update: unknown): Block[] => (update as { content?: Block[] }).content ?? [];
const text = (update: unknown): string => blocks(update).map((block) => block.content?.text ?? "").join("\n");

describe("the browser tools in the editor", () => {
  it("gives each call its ACP kind and a `browser: …` title", () => {
    const cases: Array<[string, unknown, string, string]> = [
      ["browser_navigate", { url: "localhost:3000/login?next=/" }, "fetch", "browser: navigate localhost:3000/login?next=/"],
      ["browser_navigate", { url: "https://example.com/" }, "fetch", "browser: navigate example.com"],
      ["browser_back", {}, "fetch", "browser: back"],
      ["browser_snapshot", {}, "read", "browser: snapshot"],
      ["browser_snapshot", { full: true }, "read", "browser: snapshot (full)"],
      ["browser_click", { ref: "e3" }, "execute", "browser: click @e3"],
      ["browser_type", { ref: "@e2", text: "hunter2" }, "execute", "browser: type into @e2"],
      ["browser_scroll", { direction: "down" }, "execute", "browser: scroll down"],
      ["browser_press", { key: "Enter" }, "execute", "browser: press Enter"],
      ["browser_get_images", {}, "read", "browser: images"],
      ["browser_vision", { question: "Is the   chart red?" }, "read", "browser: vision — Is the chart red?"],
      ["browser_console", {}, "read", "browser: console"],
      ["browser_console", { clear: true }, "read", "browser: console (clear)"],
      ["browser_console", { expression: "document.title" }, "read", "browser: eval document.title"],
    ];
    for (const [name, args, kind, title] of cases) expect(toolStartUpdate(toolStartEvent(prepared(name, args))), title).toMatchObject({ kind, title });
  });

  it("never shows typed text, only how much was typed", () => {
    const call = prepared("browser_type", { ref: "@e2", text: "hunter2" });
    expect(text(toolStartUpdate(toolStartEvent(call)))).toBe("Typing 7 characters into @e2");
    const done = toolEndUpdate(toolEndEvent(call, { content: '{"success":true}', isError: false, details: { ref: "@e2", chars: 7 } }));
    expect(text(done)).toBe("Typed 7 characters into @e2");
    expect(JSON.stringify(done)).not.toContain("hunter2");
  });

  it("shows the page reached with the start of its snapshot, and a failure as failed", () => {
    const call = prepared("browser_navigate", { url: "http://127.0.0.1:3000/" });
    const details = { url: "http://127.0.0.1:3000/", title: "My *App*", elementCount: 2, preview: '- button "Go" [ref=e1]', note: "The browser had stopped and was started again." };
    const shown = text(toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details })));
    expect(shown).toBe('**My \\*App\\*** — http://127.0.0.1:3000/\n2 elements with refs\n\n```yaml\n- button "Go" [ref=e1]\n```\n\n_The browser had stopped and was started again._');
    const failed = toolEndUpdate(toolEndEvent(call, { content: '{"success":false,"error":"Blocked: 10.0.0.1 is private"}', isError: true, details: { error: "Blocked: 10.0.0.1 is private", url: "http://10.0.0.1/" } }));
    expect(failed).toMatchObject({ status: "failed" });
    expect(text(failed)).toBe("Browser: Blocked: 10.0.0.1 is private");
  });

  it("shows browser_vision's screenshot as an image block above the analysis", () => {
    const call = prepared("browser_vision", { question: "What is shown?" });
    const details = { question: "What is shown?", analysis: "A login form.", model: "gpt-4o", url: "http://localhost/", title: "Login", screenshotPath: "/h/cache/screenshots/s.png", image: { data: "AAAA", mimeType: "image/jpeg" } };
    const update = toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details }));
    expect(blocks(update)[0]).toEqual({ type: "content", content: { type: "image", data: "AAAA", mimeType: "image/jpeg" } });
    expect(text(update)).toContain("**Vision analysis** (gpt-4o) of **Login** — http://localhost/\n\nA login form.\n\nScreenshot: /h/cache/screenshots/s.png");
    const failed = toolEndUpdate(toolEndEvent(call, { content: "{}", isError: true, details: { ...details, analysis: undefined, error: "Error during vision analysis: no model" } }));
    expect(failed).toMatchObject({ status: "failed" });
    expect(blocks(failed)).toHaveLength(2);
  });

  it("lists console messages, uncaught errors and blocked requests; an evaluation shows its result", () => {
    const call = prepared("browser_console", {});
    const details = { messages: [{ type: "error", text: "boom" }], errors: ["Uncaught TypeError: x is undefined"], blocked: [{ url: "http://169.254.169.254/", reason: "metadata" }], totalMessages: 1, totalErrors: 1, cleared: false };
    expect(text(toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details })))).toBe(
      "1 console messages, 1 errors, 1 blocked requests\n- [error] boom\n- uncaught: Uncaught TypeError: x is undefined\n- blocked http://169.254.169.254/: metadata",
    );
    const evaluated = prepared("browser_console", { expression: "1+1" });
    expect(text(toolEndUpdate(toolEndEvent(evaluated, { content: "{}", isError: false, details: { expression: "1+1", result: "2", resultType: "int" } })))).toBe("Result (int):\n\n```json\n2\n```");
  });

  it("falls back to the text for a call without details", () => {
    const update = toolEndUpdate(toolEndEvent(prepared("browser_scroll", { direction: "up" }), { content: '{"success":true,"scrolled":"up"}', isError: false }));
    expect(text(update)).toBe('{"success":true,"scrolled":"up"}');
  });
});
