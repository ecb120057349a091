import { describe, expect, it } from "vitest";
import type { ProviderErrorKind } from "../llm/types.js";
import { DEFAULT_OUTPUT_TOKENS, MAX_BOOSTED_OUTPUT_TOKENS, OutputBudget } from "./output-budget.js";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, isRetryable, retryPolicy } from "./retry.js";

describe("isRetryable", () => {
  it("retries rate limits, server errors, timeouts and dropped connections only", () => {
    const kinds: ProviderErrorKind[] = [
      "auth",
      "rate_limit",
      "server",
      "timeout",
      "context_overflow",
      "payload_too_large",
      "content_filter",
      "bad_request",
      "network",
      "aborted",
      "unknown",
    ];
    expect(kinds.filter(isRetryable)).toEqual(["rate_limit", "server", "timeout", "network"]);
  });
});

describe("backoffDelayMs", () => {
  const at = (random: number) => retryPolicy({ baseDelayMs: 2_000, maxDelayMs: 60_000, random: () => random });

  it("doubles per failed attempt, with jitter between half and all of the step", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, undefined, at(0)))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, undefined, at(0.5)))).toEqual([1_500, 3_000, 6_000, 12_000]);
    expect(backoffDelayMs(1, undefined, at(0.999_999))).toBe(2_000);
  });

  it("caps the step at maxDelayMs", () => {
    expect(backoffDelayMs(10, undefined, at(0))).toBe(30_000);
    expect(backoffDelayMs(50, undefined, at(0.999_999))).toBe(60_000);
  });

  it("honours Retry-After exactly, capped at 600 s", () => {
    expect(backoffDelayMs(1, 7_000, at(0.5))).toBe(7_000);
    expect(backoffDelayMs(3, 0, at(0.5))).toBe(0);
    expect(backoffDelayMs(1, 3_600_000, DEFAULT_RETRY_POLICY)).toBe(600_000);
  });

  it("ignores an unusable Retry-After", () => {
    expect(backoffDelayMs(1, Number.NaN, at(0))).toBe(1_000);
    expect(backoffDelayMs(1, -5, at(0))).toBe(1_000);
  });
});

describe("retryPolicy", () => {
  it("defaults to 3 attempts and makes at least one", () => {
    expect(retryPolicy().maxAttempts).toBe(3);
    expect(retryPolicy({ maxAttempts: 0 }).maxAttempts).toBe(1);
    expect(retryPolicy({ maxAttempts: 5 }).maxAttempts).toBe(5);
  });
});

describe("OutputBudget", () => {
  it("doubles the configured cap per recovery, three times per turn", () => {
    const budget = new OutputBudget(100);
    expect(budget.maxTokens).toBe(100);
    const caps: (number | undefined)[] = [];
    while (budget.recover(100)) caps.push(budget.maxTokens);
    expect(caps).toEqual([200, 400, 800]);
    expect(budget.canRecover).toBe(false);
    expect(budget.maxTokens).toBe(800);
  });

  it("without a configured cap, starts from what the cut answer used (at least 4096) and stops raising at 32768", () => {
    const unknown = new OutputBudget(undefined);
    expect(unknown.maxTokens).toBeUndefined();
    unknown.recover(undefined);
    expect(unknown.maxTokens).toBe(DEFAULT_OUTPUT_TOKENS * 2);
    const observed = new OutputBudget(undefined);
    observed.recover(12_000);
    expect(observed.maxTokens).toBe(24_000);
    observed.recover(12_000);
    expect(observed.maxTokens).toBe(MAX_BOOSTED_OUTPUT_TOKENS);
  });

  it("never lowers a configured cap above the raising limit", () => {
    const big = new OutputBudget(64_000);
    big.recover(64_000);
    expect(big.maxTokens).toBe(64_000);
  });
});
