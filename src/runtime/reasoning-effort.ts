/**
 * The reasoning effort a session's model is sent when the user chose none for the session:
 * config.yaml's `agent.reasoning_overrides` entry for the model, else `agent.reasoning_effort`.
 * Pure; never throws.
 */
import { modelKeyValue } from "../config/model-keys.js";
import type { HermesConfig } from "../config/schema.js";
import { isReasoningEffort, type ReasoningEffort } from "../llm/catalog.js";

/**
 * The configured effort for `model`: the `agent.reasoning_overrides` value whose key matches it
 * (see `modelKeyValue`), else `agent.reasoning_effort`; a value that is no effort level
 * (`none`, `low`, `medium`, `high`) counts as unset. Undefined: the model's own default.
 */
export function configuredReasoningEffort(agent: HermesConfig["agent"], model: string): ReasoningEffort | undefined {
  const override = modelKeyValue(agent.reasoning_overrides ?? {}, model)?.trim().toLowerCase();
  if (isReasoningEffort(override)) return override;
  const configured = agent.reasoning_effort?.trim().toLowerCase();
  return isReasoningEffort(configured) ? configured : undefined;
}

/** The effort the user chose for a stored session (`model_config.reasoning_effort` in state.db), when it is an effort level. */
export function storedReasoningEffort(modelConfig: Readonly<Record<string, unknown>>): ReasoningEffort | undefined {
  const stored = modelConfig.reasoning_effort;
  return isReasoningEffort(stored) ? stored : undefined;
}
