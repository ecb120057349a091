import { describe, expect, it } from "vitest";
import { modelKeyValue } from "./model-keys.js";

describe("modelKeyValue", () => {
  it("matches ids without case and with or without the vendor prefix on either side", () => {
    const table = { "Claude-Opus-4-6": "high", "openai/o3": "low" };
    expect(modelKeyValue(table, "claude-opus-4-6")).toBe("high");
    expect(modelKeyValue(table, "anthropic/claude-opus-4-6")).toBe("high");
    expect(modelKeyValue(table, "o3")).toBe("low");
    expect(modelKeyValue(table, "OpenAI/O3")).toBe("low");
    expect(modelKeyValue(table, "o3-mini")).toBeUndefined();
    expect(modelKeyValue(table, "")).toBeUndefined();
  });

  it("matches a trailing * as a prefix, the longest prefix winning, an exact key over any prefix", () => {
    const table = { "claude-*": "low", "anthropic/claude-opus-*": "medium", "claude-opus-4-6": "high", "gpt-5*": "none" };
    expect(modelKeyValue(table, "claude-sonnet-4-5")).toBe("low");
    expect(modelKeyValue(table, "claude-opus-4-1")).toBe("medium");
    expect(modelKeyValue(table, "openrouter/claude-opus-4-1")).toBe("medium");
    expect(modelKeyValue(table, "claude-opus-4-6")).toBe("high");
    expect(modelKeyValue(table, "openai/gpt-5-codex")).toBe("none");
    expect(modelKeyValue(table, "gemini-2.5-pro")).toBeUndefined();
    expect(modelKeyValue({ "*": "medium", "gpt-*": "low" }, "grok-3-mini")).toBe("medium");
    expect(modelKeyValue({ "*": "medium", "gpt-*": "low" }, "gpt-4o")).toBe("low");
  });

  it("takes the first of two keys that match alike", () => {
    expect(modelKeyValue({ "o3": "low", "OPENAI/O3": "high" }, "o3")).toBe("low");
  });
});
