import { describe, expect, it } from "vitest";
import { toolEndEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import { prepareToolCall, type PreparedToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { VisionResultDetails } from "../../tools/vision/details.js";
import { visionAnalyzeTool } from "../../tools/vision/vision-analyze.js";
import { toolEndUpdate, toolStartUpdate } from "../tool-render.js";

/** vision_analyze in the editor, rendered through the dispatcher. */
const TOOLS = new ToolRegistry([visionAnalyzeTool]);

const prepared = (args: unknown): PreparedToolCall => {
  const call: ToolCall = { id: "c1", type: "function", function: { name: "vision_analyze", arguments: JSON.stringify(args) } };
  return prepareToolCall(call, TOOLS, { cwd: "/w" });
};

const texts = (update: unknown): string[] =>
  ((update as { content: Array<{ content: { text: string } }> }).content ?? []).map((block) => block.content.text);

describe("vision_analyze rendering", () => {
  it("starts with the title, the file as location and the question", () => {
    const start = toolStartUpdate(toolStartEvent(prepared({ image_url: "shots/screen.png", question: "What does  the dialog say?" }))) as unknown as Record<string, unknown>;
    expect(start).toMatchObject({ title: "vision: screen.png", kind: "read", locations: [{ path: "/w/shots/screen.png" }] });
    expect(texts(start)).toEqual(["Question: What does the dialog say?"]);
  });

  it("shows who answered, what was sent, and the answer", () => {
    const call = prepared({ image_url: "https://example.com/a.png", question: "?" });
    const details: VisionResultDetails = {
      source: "example.com/a.png",
      kind: "url",
      model: "gemini-2.5-flash",
      provider: "openrouter",
      via: "auxiliary",
      original: { width: 3000, height: 2000 },
      sent: { width: 2048, height: 1365, mimeType: "image/png", bytes: 300 * 1024 },
      answer: "A **chart**.",
    };
    const end = toolEndUpdate(toolEndEvent(call, { content: "{}", isError: false, details }));
    expect(end).toMatchObject({ status: "completed" });
    expect(texts(end)).toEqual([
      "Answer from gemini-2.5-flash (auxiliary vision model) · image sent at 2048×1365 PNG, 300 KB · scaled from 3000×2000\n\nA **chart**.",
    ]);
    const cropped = toolEndUpdate(
      toolEndEvent(call, { content: "{}", isError: false, details: { ...details, via: "session", crop: { x: 10, y: 20, width: 100, height: 50 }, sent: { ...details.sent, width: 100, height: 50 } } }),
    );
    expect(texts(cropped)[0]).toMatch(/^Answer from gemini-2.5-flash \(session model\) · image sent at 100×50 PNG, 300 KB · crop 100×50 at \(10, 20\) of 3000×2000\n/);
  });

  it("fails with the error", () => {
    const call = prepared({ image_url: "/home/u/.hermes/.env", question: "?" });
    const end = toolEndUpdate(toolEndEvent(call, { content: '{"success": false, "error": "Refused"}', isError: true, details: { error: "Refused to read it", source: ".env" } }));
    expect(end).toMatchObject({ status: "failed" });
    expect(texts(end)).toEqual(["Vision failed: Refused to read it"]);
  });
});
