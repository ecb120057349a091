import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk/unstable";
import { isReasoningEffort, modelId, REASONING_EFFORTS, type CatalogEntry } from "../llm/catalog.js";
import { isSessionMode, SESSION_MODES, type SessionMode } from "../runtime/edit-policy.js";
import type { AgentSession } from "../runtime/session.js";
import { HermesError } from "../shared/errors.js";

export const MODE_CONFIG_ID = "mode";
export const MODEL_CONFIG_ID = "model";
export const EFFORT_CONFIG_ID = "reasoning_effort";

/** The session's modes as ACP `modes` (for clients using `session/set_mode`). */
export function modeState(current: SessionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: SESSION_MODES.map((mode) => ({ id: mode.id, name: mode.name, description: mode.description })),
  };
}

/** The models a picker offers: the catalog (configured default first) plus the session's own model. */
export function modelChoices(session: AgentSession, catalog: readonly CatalogEntry[]): string[] {
  const current = modelId(session.providerId, session.model);
  const ids = catalog.map((entry) => entry.id);
  return ids.includes(current) ? ids : [current, ...ids];
}

/**
 * The session's config options, whole: `model` (category model, values `provider:model`),
 * `reasoning_effort` (category thought_level, only when the model takes one) and `mode`.
 */
export function sessionConfigOptions(session: AgentSession, catalog: readonly CatalogEntry[]): SessionConfigOption[] {
  const options: SessionConfigOption[] = [
    {
      id: MODEL_CONFIG_ID,
      name: "Model",
      description: "The model answering in this session (provider:model).",
      category: "model",
      type: "select",
      currentValue: modelId(session.providerId, session.model),
      options: modelChoices(session, catalog).map((id) => ({ value: id, name: id })),
    },
  ];
  if (session.supportsReasoningEffort) {
    options.push({
      id: EFFORT_CONFIG_ID,
      name: "Reasoning effort",
      description: "How much the model thinks before answering; none turns reasoning off.",
      category: "thought_level",
      type: "select",
      currentValue: session.reasoningEffort ?? "medium",
      options: REASONING_EFFORTS.map((effort) => ({ value: effort, name: effort })),
    });
  }
  options.push({
    id: MODE_CONFIG_ID,
    name: "Mode",
    description: "How file edits are approved, or plan mode (read-only).",
    category: "mode",
    type: "select",
    currentValue: session.approvals.mode,
    options: SESSION_MODES.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
  });
  return options;
}

const invalid = (message: string): HermesError => new HermesError("invalid_params", message);

/**
 * Checks a `session/set_config_option` value against what is advertised. Throws HermesError
 * `invalid_params` for an unknown option or value; the session is not touched here.
 */
export function validateConfigValue(session: AgentSession, catalog: readonly CatalogEntry[], configId: string, value: unknown): string {
  if (typeof value !== "string") throw invalid(`config option "${configId}" takes a string value`);
  switch (configId) {
    case MODEL_CONFIG_ID:
      if (!modelChoices(session, catalog).includes(value)) throw invalid(`unknown model "${value}"; pick one of the advertised models`);
      return value;
    case EFFORT_CONFIG_ID:
      if (!session.supportsReasoningEffort) throw invalid(`the model ${session.model} takes no reasoning effort`);
      if (!isReasoningEffort(value)) throw invalid(`unknown reasoning effort "${value}"; expected one of ${REASONING_EFFORTS.join(", ")}`);
      return value;
    case MODE_CONFIG_ID:
      if (!isSessionMode(value)) throw invalid(`unknown mode "${value}"; expected one of ${SESSION_MODES.map((m) => m.id).join(", ")}`);
      return value;
    default:
      throw invalid(`unknown config option "${configId}"`);
  }
}
