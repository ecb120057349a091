import { describe, expect, it } from "vitest";
import { callCost, usageCost } from "./pricing.js";

describe("usageCost / callCost", () => {
  const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

  it("prices uncached input, cache reads, cache writes and output per million tokens", () => {
    const cost = usageCost({ inputTokens: 1_000_000, outputTokens: 100_000, totalTokens: 1_100_000, cachedTokens: 400_000, cacheWriteTokens: 100_000 }, price);
    expect(cost).toBeCloseTo((500_000 * 3 + 400_000 * 0.3 + 100_000 * 3.75 + 100_000 * 15) / 1e6, 10);
    expect(usageCost({ inputTokens: 10, outputTokens: 0, totalTokens: 10, cachedTokens: 10 }, { input: 2, output: 1 })).toBeCloseTo(20 / 1e6, 12);
  });

  it("uses the provider's reported cost first, then pricing:, else unknown", () => {
    const usage = { inputTokens: 1000, outputTokens: 1000, totalTokens: 2000 };
    expect(callCost({ ...usage, costUsd: 0.5 }, "gpt-4.1", { "gpt-4.1": { input: 1, output: 1 } })).toBe(0.5);
    expect(callCost(usage, "gpt-4.1", { "gpt-4.1": { input: 1, output: 2 } })).toBeCloseTo(0.003, 10);
    expect(callCost(usage, "other", { "gpt-4.1": { input: 1, output: 2 } })).toBeUndefined();
    expect(callCost(usage, "openai/gpt-4.1", { "GPT-4.1": { input: 1, output: 2 } })).toBeCloseTo(0.003, 10);
    expect(callCost({ ...usage, costUsd: Number.NaN }, "x", {})).toBeUndefined();
  });
});
