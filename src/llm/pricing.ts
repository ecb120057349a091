/** What a model call cost (provider-reported, or `pricing:` prices). Pure; never throws. */
import { modelKeyValue } from "../config/model-keys.js";
import type { TokenUsage } from "./types.js";

/** USD per million tokens (`pricing.<model>`); cache rates default to the input rate. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/**
 * What one call cost in USD at `price`: uncached prompt tokens at `input`, cache reads at
 * `cache_read`, cache writes at `cache_write`, output (reasoning included) at `output`.
 * Undefined for negative or non-finite results.
 */
export function usageCost(usage: TokenUsage, price: ModelPrice): number | undefined {
  const cached = Math.max(0, usage.cachedTokens ?? 0);
  const written = Math.max(0, usage.cacheWriteTokens ?? 0);
  const plain = Math.max(0, usage.inputTokens - cached - written);
  const cost =
    (plain * price.input + cached * (price.cache_read ?? price.input) + written * (price.cache_write ?? price.input) + Math.max(0, usage.outputTokens) * price.output) /
    1_000_000;
  return Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}

/**
 * The cost of a call: what the provider reported (`usage.costUsd`), else the `pricing:` entry for
 * `model`, else undefined (unknown — not the same as free).
 */
export function callCost(usage: TokenUsage, model: string, pricing: Readonly<Record<string, ModelPrice>>): number | undefined {
  if (usage.costUsd !== undefined && Number.isFinite(usage.costUsd) && usage.costUsd >= 0) return usage.costUsd;
  const price = modelKeyValue(pricing, model);
  return price ? usageCost(usage, price) : undefined;
}
