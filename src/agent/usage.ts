import type { TokenUsage } from "../llm/types.js";

/** Sums usage across the model calls of one turn; `undefined` when no call reported any. */
export function addUsage(total: TokenUsage | undefined, next: TokenUsage | undefined): TokenUsage | undefined {
  if (!next) return total;
  if (!total) return { ...next };
  const sum: TokenUsage = {
    inputTokens: total.inputTokens + next.inputTokens,
    outputTokens: total.outputTokens + next.outputTokens,
    totalTokens: total.totalTokens + next.totalTokens,
  };
  const reasoning = (total.reasoningTokens ?? 0) + (next.reasoningTokens ?? 0);
  const cached = (total.cachedTokens ?? 0) + (next.cachedTokens ?? 0);
  if (total.reasoningTokens !== undefined || next.reasoningTokens !== undefined) sum.reasoningTokens = reasoning;
  if (total.cachedTokens !== undefined || next.cachedTokens !== undefined) sum.cachedTokens = cached;
  if (total.cacheWriteTokens !== undefined || next.cacheWriteTokens !== undefined) sum.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + (next.cacheWriteTokens ?? 0);
  if (total.costUsd !== undefined || next.costUsd !== undefined) sum.costUsd = (total.costUsd ?? 0) + (next.costUsd ?? 0);
  return sum;
}
