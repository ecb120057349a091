import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { configSchema } from "../src/config/schema.js";
import { resolveToolset } from "../src/tools/toolsets.js";
import { startFakeAnthropic, type FakeAnthropic } from "./support/fake-anthropic.js";
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "./support/fake-llm.js";
import { runtimeSuite } from "./support/runtime-suite.js";

/** vision_analyze through the real runtime: which model gets the image, how big, and what the tool returns. */
const suite = runtimeSuite();
let second: FakeLlm | undefined;
let claude: FakeAnthropic | undefined;
afterEach(async () => {
  await second?.close();
  await claude?.close();
  second = undefined;
  claude = undefined;
});

const config = (extra = "", model = "gpt-4o") => `model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: ${model}\n${extra}`;

/** A 3000×2000 PNG in the workspace: left half red, right half blue. */
async function workspacePng(name: string): Promise<string> {
  const width = 3000;
  const height = 2000;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(x < width / 2 ? [255, 0, 0] : [0, 0, 255], (y * width + x) * 3);
  const file = join(suite.home.workspace, name);
  await sharp(raw, { raw: { width, height, channels: 3 } }).png().toFile(file);
  return file;
}

interface WirePart {
  type: string;
  text?: string;
  image_url?: { url: string };
}

/** The image parts of a recorded chat-completions request. */
function imageParts(request: RecordedRequest): string[] {
  const messages = request.body.messages as Array<{ role: string; content: string | WirePart[] }>;
  return messages.flatMap((message) => (Array.isArray(message.content) ? message.content.filter((part) => part.type === "image_url").map((part) => part.image_url!.url) : []));
}

async function dimensions(dataUrl: string): Promise<{ format?: string; width?: number; height?: number }> {
  const meta = await sharp(Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64")).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
}

function toolResult(request: RecordedRequest, callId: string): { success: boolean; analysis?: string; error?: string } {
  const messages = request.body.messages as Array<{ tool_call_id?: string; content: string }>;
  return JSON.parse(messages.find((message) => message.tool_call_id === callId)!.content) as { success: boolean; analysis?: string; error?: string };
}

describe("vision_analyze", () => {
  it("sends a workspace PNG, scaled down, to the session model when it takes images, and returns its answer", async () => {
    suite.home.writeConfig(config());
    await workspacePng("chart.png");
    const session = await suite.open();
    expect(session.tools.names()).toContain("vision_analyze");
    suite.llm.push(
      { tool_calls: [{ id: "v1", name: "vision_analyze", arguments: { image_url: "chart.png", question: "Which colours are there?" } }] },
      { text: "Red on the left, blue on the right." },
      { text: "The chart is red and blue." },
    );
    await suite.ask(session, "look at chart.png");
    expect(suite.llm.requests).toHaveLength(3);
    const side = suite.llm.requests[1]!;
    expect(side.body.model).toBe("gpt-4o");
    expect(side.body.tools).toBeUndefined();
    const [image] = imageParts(side);
    expect(image).toMatch(/^data:image\/png;base64,/);
    expect(await dimensions(image!)).toEqual({ format: "png", width: 2048, height: 1365 });
    const question = (side.body.messages as Array<{ content: WirePart[] }>)[0]!.content[0]!.text;
    expect(question).toContain("Which colours are there?");
    const result = toolResult(suite.llm.requests[2]!, "v1");
    expect(result.success).toBe(true);
    expect(result.analysis).toMatch(/^\[Image downscaled from 3000x2000 to 2048x1365 for vision; .*\] Red on the left, blue on the right\.$/);
    // The image went only to the side request, never into the conversation.
    expect(imageParts(suite.llm.requests[2]!)).toEqual([]);
  });

  it("sends the image to auxiliary.vision's model when one is configured", async () => {
    second = await startFakeLlm([{ text: "A red and blue split." }]);
    suite.home.writeConfig(config(`auxiliary:\n  vision:\n    base_url: ${second.baseUrl}\n    model: vision-model\n`, "test-model"));
    await workspacePng("split.png");
    const session = await suite.open();
    expect(session.tools.names()).toContain("vision_analyze");
    suite.llm.push({ tool_calls: [{ id: "v2", name: "vision_analyze", arguments: { image_url: "split.png", question: "Describe it", region: [0, 0, 1500, 2000] } }] }, { text: "done" });
    await suite.ask(session, "describe split.png");
    expect(second.requests).toHaveLength(1);
    expect(second.requests[0]!.body.model).toBe("vision-model");
    const [image] = imageParts(second.requests[0]!);
    expect(await dimensions(image!)).toEqual({ format: "png", width: 1500, height: 2000 });
    // The session's model saw no image and answered only the conversation.
    expect(suite.llm.requests).toHaveLength(2);
    expect(suite.llm.requests.flatMap(imageParts)).toEqual([]);
    const result = toolResult(suite.llm.requests[1]!, "v2");
    expect(result).toMatchObject({ success: true });
    expect(result.analysis).toMatch(/cropped region .* offset \(0, 0\).*\] A red and blue split\.$/);
  });

  it("reaches an Anthropic Messages vision model as a base64 image block", async () => {
    claude = await startFakeAnthropic([{ text: "Two colours." }]);
    suite.home.writeConfig(config(`auxiliary:\n  vision:\n    base_url: ${claude.baseUrl}\n    api_mode: anthropic_messages\n    api_key: test-key\n    model: claude-sonnet-4-5\n`, "test-model"));
    await workspacePng("split.png");
    const session = await suite.open();
    suite.llm.push({ tool_calls: [{ id: "v4", name: "vision_analyze", arguments: { image_url: "split.png", question: "Describe it" } }] }, { text: "done" });
    await suite.ask(session, "describe split.png");
    const [body] = claude.messageBodies() as Array<{ model: string; messages: Array<{ content: Array<{ type: string; source?: { type: string; media_type: string; data: string } }> }> }>;
    expect(body!.model).toBe("claude-sonnet-4-5");
    const block = body!.messages[0]!.content.find((part) => part.type === "image")!;
    expect(block.source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(await dimensions(`data:image/png;base64,${block.source!.data}`)).toEqual({ format: "png", width: 2048, height: 1365 });
    expect(toolResult(suite.llm.requests[1]!, "v4").analysis).toMatch(/\] Two colours\.$/);
  });

  it("is not offered when the session model does not take images and auxiliary.vision names none, and says why", async () => {
    suite.home.writeConfig(config("", "test-model"));
    const session = await suite.open();
    expect(session.tools.names()).not.toContain("vision_analyze");
    expect(session.toolset?.unavailable).toContainEqual({
      tool: "vision_analyze",
      reason: "the session model test-model does not take images; set auxiliary.vision.model (or model.supports_vision: true if it does)",
    });
    const resolved = resolveToolset(configSchema.parse({ model: { default: "test-model" } }), {});
    expect(resolved.tools.map((tool) => tool.name)).not.toContain("vision_analyze");
    expect(resolved.unavailable.find((entry) => entry.tool === "vision_analyze")?.reason).toMatch(/test-model does not take images/);
    // model.supports_vision: true (Hermes' override) offers it on the same model.
    suite.home.writeConfig(config("  supports_vision: true\n", "test-model"));
    expect((await suite.open()).tools.names()).toContain("vision_analyze");
  });

  it("refuses a credential file in HERMES_HOME without sending anything", async () => {
    suite.home.writeConfig(config());
    const session = await suite.open();
    suite.llm.push({ tool_calls: [{ id: "v3", name: "vision_analyze", arguments: { image_url: join(suite.home.home, ".env"), question: "?" } }] }, { text: "ok" });
    await suite.ask(session, "look");
    expect(suite.llm.requests).toHaveLength(2);
    const result = toolResult(suite.llm.requests[1]!, "v3");
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/Refused to read .*\.env/);
  });
});
