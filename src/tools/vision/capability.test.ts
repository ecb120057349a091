import { describe, expect, it } from "vitest";
import { configSchema } from "../../config/schema.js";
import { modelTakesImages, nameSuggestsVision, visionUnavailableReason } from "./capability.js";

const VISION = [
  "gpt-4o",
  "gpt-4o-mini",
  "openai/gpt-4o-2024-08-06",
  "chatgpt-4o-latest",
  "gpt-4.1-nano",
  "gpt-4-turbo",
  "gpt-4-vision-preview",
  "gpt-5",
  "gpt-5.1-codex",
  "o1",
  "o3",
  "o3-pro",
  "o4-mini",
  "claude-3-haiku-20240307",
  "claude-3-5-sonnet-latest",
  "claude-3-7-sonnet-20250219",
  "claude-sonnet-4-5",
  "anthropic/claude-opus-4.1",
  "us.anthropic.claude-sonnet-4-20250514-v1:0",
  "claude-haiku-4-5",
  "sonnet",
  "opus",
  "gemini-2.5-pro",
  "google/gemini-2.0-flash-001",
  "gemini-pro-vision",
  "gemma-3-27b-it",
  "gemma3:12b",
  "gemma-3n-e4b-it",
  "qwen-vl-max",
  "Qwen/Qwen2.5-VL-72B-Instruct",
  "qwen2.5vl:7b",
  "qwen3-vl-235b-a22b-instruct",
  "qvq-72b-preview",
  "llava:13b",
  "llava-llama3",
  "bakllava",
  "llama3.2-vision:11b",
  "meta-llama/llama-3.2-90b-vision-instruct",
  "meta-llama/llama-4-maverick",
  "llama4:scout",
  "pixtral-large-latest",
  "mistral-small-3.1-24b-instruct",
  "grok-2-vision-1212",
  "grok-vision-beta",
  "grok-4",
  "glm-4v-plus",
  "glm-4.5v",
  "minicpm-v",
  "OpenGVLab/InternVL3-78B",
  "moondream",
  "amazon.nova-pro-v1:0",
  "deepseek-vl2",
  "phi-3.5-vision-instruct",
  "granite3.2-vision",
];

const TEXT_ONLY = [
  "test-model",
  "gpt-3.5-turbo",
  "gpt-4",
  "gpt-4-turbo-preview",
  "gpt-4o-audio-preview",
  "gpt-4o-realtime-preview",
  "gpt-4o-mini-tts",
  "gpt-oss-120b",
  "o1-mini",
  "o1-preview",
  "o3-mini",
  "claude-2.1",
  "claude-instant-1.2",
  "gemini-pro",
  "gemini-1.0-pro",
  "gemini-embedding-001",
  "gemma-2-9b-it",
  "gemma3:1b",
  "gemma-3-1b-it",
  "qwen2.5-coder:32b",
  "qwen3-235b-a22b",
  "llama3.1:8b",
  "meta-llama/llama-3.3-70b-instruct",
  "mistral-large-latest",
  "mistral-small-2501",
  "grok-3",
  "glm-4.6",
  "deepseek-chat",
  "deepseek-r1",
  "hermes-3-llama-3.1-405b",
  "kimi-k2",
  "",
];

describe("nameSuggestsVision", () => {
  it.each(VISION)("knows %s takes images", (model) => {
    expect(nameSuggestsVision(model)).toBe(true);
  });
  it.each(TEXT_ONLY)("counts %j as text-only", (model) => {
    expect(nameSuggestsVision(model)).toBe(false);
  });
});

describe("model.supports_vision", () => {
  it("overrides the name either way, in Hermes' spellings; other values are ignored", () => {
    const config = (value: unknown) => configSchema.parse({ model: { default: "my-local-model", supports_vision: value } });
    expect(modelTakesImages("my-local-model", config(true))).toBe(true);
    expect(modelTakesImages("my-local-model", config("yes"))).toBe(true);
    expect(modelTakesImages("my-local-model", config(1))).toBe(true);
    expect(modelTakesImages("gpt-4o", config(false))).toBe(false);
    expect(modelTakesImages("gpt-4o", config("false"))).toBe(false);
    expect(config("maybe").model.supports_vision).toBeUndefined();
    expect(modelTakesImages("gpt-4o", config("maybe"))).toBe(true);
    expect(modelTakesImages("my-local-model", config(undefined))).toBe(false);
  });
});

describe("visionUnavailableReason", () => {
  const reason = (raw: Record<string, unknown>) => visionUnavailableReason(configSchema.parse(raw));

  it("offers vision for a model that takes images, an explicit auxiliary.vision.model, or the override", () => {
    expect(reason({ model: { default: "claude-sonnet-4-5" } })).toBeUndefined();
    expect(reason({ model: { default: "test-model" }, auxiliary: { vision: { provider: "openrouter", model: "google/gemini-2.5-flash" } } })).toBeUndefined();
    expect(reason({ model: { default: "test-model", supports_vision: true } })).toBeUndefined();
  });

  it("says why and what to set when it is not offered", () => {
    expect(reason({ model: { default: "test-model" } })).toBe(
      "the session model test-model does not take images; set auxiliary.vision.model (or model.supports_vision: true if it does)",
    );
    expect(reason({ model: { default: "gpt-4o", supports_vision: false } })).toBe(
      "model.supports_vision is false for gpt-4o; set auxiliary.vision.model to a model that takes images",
    );
    expect(reason({})).toMatch(/^no model is configured/);
    // provider: auto without a model leaves images to the session's model.
    expect(reason({ model: { default: "test-model" }, auxiliary: { vision: { provider: "auto" } } })).toMatch(/does not take images/);
  });
});
