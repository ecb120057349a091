import type { ContextCompressor } from "../agent/compression.js";
import type { TurnInput } from "../agent/loop.js";
import { toolResultLimitsFor } from "../agent/result-budget.js";
import type { HermesConfig } from "../config/schema.js";
import type { ResolvedProvider } from "../llm/types.js";
import { log } from "../shared/logger.js";

export interface ModelFitInput {
  /** The session's compressor: its forced compression answers a context overflow. */
  compressor: ContextCompressor;
  config: HermesConfig;
  /** The turn's model (fixed for the turn). */
  resolved: ResolvedProvider;
  /** Remembers a window a provider's error stated (ContextLengthCache via the runtime), when wired. */
  learn?: ((provider: string, model: string, tokens: number) => void) | undefined;
  /** `provider\0model` of the session's models known to refuse images; kept by the session across turns. */
  textOnlyModels: Set<string>;
}

/**
 * The turn fields that fit requests to the session's model (see call-recovery.ts, result-budget.ts):
 * an overflow compresses through the session's compressor (forced, `compressForOverflow`); a window
 * an error states is learned for the model (config.yaml's `model.context_length` still wins: a
 * disagreement is logged, nothing else); a refusal of images marks the model text-only for the rest
 * of the session; tool results are budgeted for the model's window as the compressor sees it now.
 */
export function modelFit(input: ModelFitInput): Pick<TurnInput, "onContextOverflow" | "onContextLimit" | "textOnly" | "toolResultLimits"> {
  const { provider, model } = input.resolved;
  const key = `${provider}\u0000${model}`;
  return {
    onContextOverflow: (history, info, signal) => input.compressor.compressForOverflow(history, signal, info.attempt),
    onContextLimit: (tokens) => {
      const configured = input.config.model.context_length;
      if (configured && configured !== tokens) {
        log.warn(`${provider}:${model} says its context window is ${tokens} tokens; model.context_length in config.yaml says ${configured} (config.yaml wins)`);
      }
      input.learn?.(provider, model, tokens);
    },
    textOnly: { known: () => input.textOnlyModels.has(key), mark: () => void input.textOnlyModels.add(key) },
    toolResultLimits: toolResultLimitsFor(input.compressor.window()),
  };
}
