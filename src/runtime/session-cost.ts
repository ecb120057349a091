import type { ModelPrice } from "../llm/pricing.js";
import { callCost } from "../llm/pricing.js";
import type { TokenUsage } from "../llm/types.js";

/**
 * What a session's model calls cost in USD: the stored total plus this process's calls, each
 * priced by the provider's report, else `pricing:`, else 0 (unknown). The total stays finite.
 */
export class SessionCost {
  private accrued = 0;

  constructor(
    private readonly stored: number,
    private readonly pricing: Readonly<Record<string, ModelPrice>>,
  ) {}

  get total(): number {
    return Math.max(0, this.stored) + this.accrued;
  }

  /** Adds one call of `model`; answers its cost (0 when unknown or when it would overflow the total). Never throws. */
  note(usage: TokenUsage, model: string): number {
    const cost = callCost(usage, model, this.pricing) ?? 0;
    // a provider reporting absurd costs must not turn the total into Infinity (sent as null)
    if (!Number.isFinite(this.accrued + cost)) return 0;
    this.accrued += cost;
    return cost;
  }
}
