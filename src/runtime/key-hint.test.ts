import { describe, expect, it } from "vitest";
import { keyHint } from "./key-hint.js";

describe("keyHint", () => {
  it("names the environment variable or the config key the API key came from", () => {
    expect(keyHint({ source: "model.provider: openrouter; key: env OPENROUTER_API_KEY; model: model.default" })).toBe("OPENROUTER_API_KEY");
    expect(keyHint({ source: "auto: env OPENAI_API_KEY; base_url: default; model: default for openai" })).toBe("OPENAI_API_KEY");
    expect(keyHint({ source: "model.provider: custom; key: model.api_key" })).toBe("model.api_key in config.yaml");
    expect(keyHint({ source: "providers.deepseek in config.yaml; key: providers.deepseek.api_key" })).toBe(
      "providers.deepseek.api_key in config.yaml",
    );
  });

  it("says nothing when no key was used", () => {
    expect(keyHint({ source: "model.provider: ollama; base_url: http://localhost:11434/v1; key: none" })).toBeUndefined();
  });
});
