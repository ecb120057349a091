import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { configSchema } from "../../config/schema.js";
import { HermesError } from "../../shared/errors.js";
import type { ChatMessage, UserContentPart } from "../../llm/types.js";
import type { AuxiliaryModelPort } from "../ports.js";
import type { ToolContext, ToolResult } from "../types.js";
import { askAboutImage } from "./ask-image.js";
import type { VisionResultDetails } from "./details.js";
import { visionAnalyzeTool, type VisionAnalyzeArgs } from "./vision-analyze.js";

const root = mkdtempSync(join(tmpdir(), "vision-tool-"));
const home = join(root, "home");
const workspace = join(root, "workspace");
mkdirSync(home, { recursive: true });
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A port that records what it was sent and answers from `answers` (a function may throw). */
function recordingPort(target: { provider: string; model: string; configured: boolean } | undefined, answers: Array<string | (() => never)>) {
  const sent: ChatMessage[][] = [];
  const port: AuxiliaryModelPort = {
    complete: async (_task, messages) => {
      sent.push(messages);
      const next = answers.shift() ?? "";
      return typeof next === "string" ? next : next();
    },
    describe: () => target,
  };
  return { port, sent };
}

const context = (port: AuxiliaryModelPort | undefined, config: Record<string, unknown> = {}): ToolContext =>
  toolContext({ cwd: workspace, hermesHome: home, config: configSchema.parse(config), ports: port ? { auxiliaryModel: port } : {} });

const run = (args: VisionAnalyzeArgs, ctx: ToolContext) => visionAnalyzeTool.execute(args, ctx) as Promise<ToolResult<VisionResultDetails>>;

const imagePart = (messages: ChatMessage[]): Extract<UserContentPart, { type: "image_url" }> => {
  const content = messages[0]!.content as UserContentPart[];
  return content.find((part): part is Extract<UserContentPart, { type: "image_url" }> => part.type === "image_url")!;
};

describe("vision_analyze", () => {
  it("sends Hermes' prompt and the scaled image, and returns the answer in Hermes' shape", async () => {
    const file = join(workspace, "wide.png");
    await sharp({ create: { width: 4096, height: 1024, channels: 3, background: "#336699" } }).png().toFile(file);
    const { port, sent } = recordingPort({ provider: "openrouter", model: "gpt-4o", configured: false }, ["A blue rectangle."]);
    const result = await run({ image_url: "wide.png", question: "What colour is it?" }, context(port));
    expect(result.isError).toBeUndefined();
    const body = JSON.parse(result.content) as { success: boolean; analysis: string; scale_note: string };
    expect(body.success).toBe(true);
    expect(body.scale_note).toMatch(/^Image downscaled from 4096x1024 to 2048x512 for vision; multiply any coordinates you report by 2\.00/);
    expect(body.analysis).toBe(`[${body.scale_note}] A blue rectangle.`);
    const content = sent[0]![0]!.content as UserContentPart[];
    expect(content[0]).toEqual({ type: "text", text: "Fully describe and explain everything about this image, then answer the following question:\n\nWhat colour is it?" });
    const url = imagePart(sent[0]!).image_url.url;
    expect(url.startsWith("data:image/png;base64,")).toBe(true);
    const meta = await sharp(Buffer.from(url.slice(url.indexOf(",") + 1), "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([2048, 512]);
    expect(result.details).toMatchObject({
      source: "wide.png",
      kind: "file",
      path: file,
      model: "gpt-4o",
      via: "session",
      original: { width: 4096, height: 1024 },
      sent: { width: 2048, height: 512, mimeType: "image/png" },
      answer: "A blue rectangle.",
    });
  });

  it("takes data: URLs and crops to the region", async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#ff0000" } }).png().toBuffer();
    const { port, sent } = recordingPort({ provider: "custom", model: "llava:7b", configured: true }, ["red"]);
    const result = await run({ image_url: `data:image/png;base64,${png.toString("base64")}`, question: "colour?", region: [10, 20, 110, 70] }, context(port));
    const body = JSON.parse(result.content) as { analysis: string };
    expect(body.analysis).toMatch(/^\[Analysis was performed on a cropped region of the original image starting at offset \(10, 20\)/);
    const meta = await sharp(Buffer.from(imagePart(sent[0]!).image_url.url.split(",")[1]!, "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([100, 50]);
    expect(result.details).toMatchObject({ kind: "data", via: "auxiliary", crop: { x: 10, y: 20, width: 100, height: 50 } });
  });

  it("refuses when the session model (after a switch) does not take images and auxiliary.vision names none", async () => {
    writeFileSync(join(workspace, "dot.png"), await sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } }).png().toBuffer());
    const { port, sent } = recordingPort({ provider: "custom", model: "test-model", configured: false }, ["never"]);
    const result = await run({ image_url: "dot.png", question: "?" }, context(port));
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content)).toEqual({
      success: false,
      error: "The session model test-model does not take images; set auxiliary.vision.model in config.yaml to a model that does (or model.supports_vision: true if this one does).",
    });
    expect(sent).toHaveLength(0);
    // model.supports_vision: true is trusted.
    const trusted = recordingPort({ provider: "custom", model: "test-model", configured: false }, ["ok"]);
    expect((await run({ image_url: "dot.png", question: "?" }, context(trusted.port, { model: { supports_vision: true } }))).isError).toBeUndefined();
  });

  it("reports credential files, non-images and failed requests as errors the model can read", async () => {
    writeFileSync(join(home, ".env"), "OPENAI_API_KEY=sk-very-secret\n");
    const { port, sent } = recordingPort({ provider: "openai", model: "gpt-4o", configured: false }, [
      () => {
        throw new HermesError("provider_error", "summary request to openai failed: 400 image_url is invalid");
      },
    ]);
    const refused = await run({ image_url: join(home, ".env"), question: "?" }, context(port));
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/Refused to read .*holds Hermes credentials/);
    expect(refused.content).not.toContain("sk-very-secret");
    expect(refused.details).toMatchObject({ path: join(home, ".env") });

    writeFileSync(join(workspace, "notes.png"), "just text");
    expect((await run({ image_url: "notes.png", question: "?" }, context(port))).content).toMatch(/Not a readable image/);
    expect(sent).toHaveLength(0);

    const failed = await run({ image_url: "dot.png", question: "?" }, context(port));
    expect(failed.isError).toBe(true);
    expect(JSON.parse(failed.content).error).toMatch(/^The vision API rejected the image/);
  });

  it("asks once more on an empty answer, and has a clear message without any model", async () => {
    const { port, sent } = recordingPort({ provider: "openai", model: "gpt-4o", configured: false }, ["", "second try"]);
    expect(JSON.parse((await run({ image_url: "dot.png", question: "?" }, context(port))).content).analysis).toBe("second try");
    expect(sent).toHaveLength(2);
    expect((await run({ image_url: "dot.png", question: "?" }, context(undefined))).content).toMatch(/No model is available to look at images/);
  });

  it("is titled by file name or host/path, with the local file as location", () => {
    expect(visionAnalyzeTool.describe({ image_url: "shots/a.png", question: "?" }, { cwd: workspace })).toEqual({
      title: "vision: a.png",
      locations: [{ path: join(workspace, "shots", "a.png") }],
    });
    expect(visionAnalyzeTool.describe({ image_url: "https://example.com/i/cat.jpg", question: "?" }, { cwd: workspace })).toEqual({ title: "vision: example.com/i/cat.jpg", locations: [] });
    expect(visionAnalyzeTool.describe({ image_url: "gopher://x", question: "?" }, { cwd: workspace }).locations).toEqual([]);
  });
});

describe("askAboutImage", () => {
  it("sends the question as written with the prepared image, and names the model", async () => {
    const { port, sent } = recordingPort({ provider: "openrouter", model: "google/gemini-2.5-flash", configured: true }, ["a screenshot"]);
    const screenshot = await sharp({ create: { width: 2560, height: 1600, channels: 3, background: "#eeeeee" } }).png().toBuffer();
    const answer = await askAboutImage(context(port), { data: screenshot, mimeType: "image/png" }, "What is on the page?");
    expect(answer).toEqual({ answer: "a screenshot", model: "google/gemini-2.5-flash" });
    expect((sent[0]![0]!.content as UserContentPart[])[0]).toEqual({ type: "text", text: "What is on the page?" });
    const meta = await sharp(Buffer.from(imagePart(sent[0]!).image_url.url.split(",")[1]!, "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([2048, 1280]);
    await expect(askAboutImage(context(port), { data: Buffer.from("nope"), mimeType: "image/png" }, "?")).rejects.toMatchObject({ code: "invalid_params" });
  });
});
