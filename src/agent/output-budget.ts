/**
 * The output cap (`max_tokens`) of one turn's model calls, raised each time an answer is cut off by it
 * (`finish_reason: length`), at most `MAX_LENGTH_RECOVERIES` times per turn (hermes-agent-core §3.5).
 */

/** Continuations of a truncated answer (or re-asks after a truncated tool call) per turn. */
export const MAX_LENGTH_RECOVERIES = 3;
/** The base to double from when neither config nor the server says what the cap was. */
export const DEFAULT_OUTPUT_TOKENS = 4_096;
/** Raising stops here, unless the configured cap is already higher. */
export const MAX_BOOSTED_OUTPUT_TOKENS = 32_768;

export class OutputBudget {
  private recoveries = 0;
  private base: number | undefined;
  /** Set by `lower`: no call of the turn asks for more (the prompt only grows within a turn). */
  private ceiling: number | undefined;

  /** `configured`: `model.max_tokens`, when set. */
  constructor(private readonly configured: number | undefined) {}

  /** The cap to send on the next call; undefined leaves it to the server (until a truncation). */
  get maxTokens(): number | undefined {
    const wanted = this.recoveries === 0 || this.base === undefined ? this.configured : Math.max(this.base, Math.min(this.base * 2 ** this.recoveries, MAX_BOOSTED_OUTPUT_TOKENS));
    if (this.ceiling === undefined) return wanted;
    return wanted === undefined ? this.ceiling : Math.min(wanted, this.ceiling);
  }

  /**
   * Caps every later call of the turn at `tokens` (at most; an earlier lower ceiling stays): the
   * provider said prompt + output cap exceed the window while the prompt alone fits. Length
   * recoveries still count, but never raise the cap past it.
   */
  lower(tokens: number): void {
    const cap = Math.max(1, Math.floor(tokens));
    this.ceiling = this.ceiling === undefined ? cap : Math.min(this.ceiling, cap);
  }

  /** Whether another truncation may still be recovered from this turn. */
  get canRecover(): boolean {
    return this.recoveries < MAX_LENGTH_RECOVERIES;
  }

  /**
   * Records a truncation and raises the cap: the base is the configured cap, else what the truncated
   * answer used (`observedOutputTokens`, at least `DEFAULT_OUTPUT_TOKENS`); call n then gets base × 2ⁿ.
   * Answers false (and changes nothing) when the recoveries are used up.
   */
  recover(observedOutputTokens: number | undefined): boolean {
    if (!this.canRecover) return false;
    this.base ??= this.configured ?? Math.max(observedOutputTokens ?? 0, DEFAULT_OUTPUT_TOKENS);
    this.recoveries += 1;
    return true;
  }
}
