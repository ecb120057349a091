import { describe, expect, it } from "vitest";
import { defaultConfig, type HermesConfig } from "../config/schema.js";
import { configuredReasoningEffort, storedReasoningEffort } from "./reasoning-effort.js";

function agent(fields: Partial<HermesConfig["agent"]>): HermesConfig["agent"] {
  return { ...defaultConfig().agent, ...fields };
}

describe("configuredReasoningEffort", () => {
  it("takes the model's override, else agent.reasoning_effort, else nothing", () => {
    const config = agent({ reasoning_effort: "medium", reasoning_overrides: { "claude-opus-*": "high", "openai/o3": "low" } });
    expect(configuredReasoningEffort(config, "claude-opus-4-6")).toBe("high");
    expect(configuredReasoningEffort(config, "anthropic/claude-opus-4-1")).toBe("high");
    expect(configuredReasoningEffort(config, "o3")).toBe("low");
    expect(configuredReasoningEffort(config, "gpt-5")).toBe("medium");
    expect(configuredReasoningEffort(agent({}), "gpt-5")).toBeUndefined();
  });

  it("treats a value that is no effort level as unset", () => {
    const config = agent({ reasoning_effort: "High ", reasoning_overrides: { "gpt-5": "extreme" } });
    expect(configuredReasoningEffort(config, "gpt-5")).toBe("high");
    expect(configuredReasoningEffort(agent({ reasoning_effort: "max" }), "gpt-5")).toBeUndefined();
  });
});

describe("storedReasoningEffort", () => {
  it("reads model_config.reasoning_effort when it is an effort level", () => {
    expect(storedReasoningEffort({ reasoning_effort: "low", provider: "x" })).toBe("low");
    expect(storedReasoningEffort({ reasoning_effort: "extreme" })).toBeUndefined();
    expect(storedReasoningEffort({})).toBeUndefined();
  });
});
