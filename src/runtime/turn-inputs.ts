import type { FallbackCandidate } from "../agent/fallback.js";
import type { TurnInput } from "../agent/loop.js";
import type { HermesConfig } from "../config/schema.js";
import type { ReasoningEffort } from "../llm/catalog.js";
import type { ResolvedProvider } from "../llm/types.js";
import { sandboxSettings } from "../tools/exec/sandbox/settings.js";
import type { SessionApprovals } from "./approvals.js";
import { keyHint } from "./key-hint.js";

/** What config.yaml and the resolved provider decide about a turn's model calls. */
export type TurnModelSettings = Pick<
  TurnInput,
  "model" | "maxTurns" | "maxTokens" | "maxResponseChars" | "reasoningEffort" | "providerLabel" | "keyHint" | "retry" | "fallbacks"
>;

/**
 * A turn's model, limits, retries and fallbacks from `config` and `resolved`; `effort` is sent only
 * when given (the caller decides whether the model takes one). Pure.
 */
export function turnModelSettings(
  config: HermesConfig,
  resolved: ResolvedProvider,
  effort: ReasoningEffort | undefined,
  fallbacks?: (main: ResolvedProvider) => FallbackCandidate[],
): TurnModelSettings {
  const hint = keyHint(resolved);
  return {
    model: resolved.model,
    maxTurns: config.agent.max_turns,
    ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
    ...(config.model.max_response_chars ? { maxResponseChars: config.model.max_response_chars } : {}),
    ...(effort ? { reasoningEffort: effort } : {}),
    providerLabel: resolved.provider,
    ...(hint ? { keyHint: hint } : {}),
    retry: { maxAttempts: config.agent.api_max_retries },
    ...(fallbacks ? { fallbacks: fallbacks(resolved) } : {}),
  };
}

/**
 * What a session's tool calls run with (its turns' and its background review's), plus `extra`.
 * `sandbox` stays a getter: the session's mode may change between tool batches (plan → read-only
 * sandbox), and each batch reads it then.
 */
export function sessionToolContext<T extends object>(
  session: { id: string; cwd: string; hermesHome: string; config: HermesConfig; approvals: Pick<SessionApprovals, "mode"> },
  extra: T,
) {
  const { config, approvals } = session;
  const base = {
    sessionId: session.id,
    cwd: session.cwd,
    hermesHome: session.hermesHome,
    config,
    get sandbox() {
      return sandboxSettings(config, approvals.mode === "plan");
    },
  };
  return Object.assign(base, extra);
}
