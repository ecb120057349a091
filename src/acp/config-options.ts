import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk/unstable";
import { isReasoningEffort, modelId, REASONING_EFFORTS, type CatalogEntry } from "../llm/catalog.js";
import { isSessionMode, SESSION_MODES, type SessionMode } from "../runtime/edit-policy.js";
import type { AgentSession } from "../runtime/session.js";
import { HermesError } from "../shared/errors.js";

export const MODE_CONFIG_ID = "mode";
export const MODEL_CONFIG_ID = "model";
export const EFFORT_CONFIG_ID = "reasoning_effort";
/** Hermes' id of its edit-approval picker (category mode); accepted as another name of `mode`, never advertised. */
export const EDIT_APPROVAL_POLICY_ID = "edit_approval_policy";

/**
 * Hermes' edit-approval policies and the modes they are (Hermes' `_MODES`): `ask` → default,
 * `workspace_session` → accept_edits, `session` → dont_ask.
 */
export const EDIT_APPROVAL_POLICIES: Readonly<Record<string, SessionMode>> = { ask: "default", workspace_session: "accept_edits", session: "dont_ask" };

/** The advertised option a config id names: `edit_approval_policy` is `mode`; any other id is itself. */
export function canonicalConfigId(configId: string): string {
  return configId === EDIT_APPROVAL_POLICY_ID ? MODE_CONFIG_ID : configId;
}

/** The session's modes as ACP `modes` (for clients using `session/set_mode`). */
export function modeState(current: SessionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: SESSION_MODES.map((mode) => ({ id: mode.id, name: mode.name, description: mode.description })),
  };
}

/** The models a picker offers: the catalog (configured default first) plus the session's own model. */
export function modelChoices(session: AgentSession, catalog: readonly CatalogEntry[]): string[] {
  const current = currentModelId(session, catalog);
  const ids = catalog.map((entry) => entry.id);
  return ids.includes(current) ? ids : [current, ...ids];
}

/**
 * One model choice as Hermes labels it: the model's name (the configured default, first in the
 * catalog, as `Configured Default — <model>`), its provider in the description.
 */
function modelOption(id: string, index: number, catalog: readonly CatalogEntry[]): { value: string; name: string; description?: string } {
  const entry = catalog.find((candidate) => candidate.id === id);
  if (!entry) return { value: id, name: id };
  const name = index === 0 && catalog[0] === entry ? `Configured Default — ${entry.model}` : entry.model;
  return { value: id, name, description: `Provider: ${entry.provider}` };
}

/** The picker id of the session's model: its catalog entry's (named endpoints are `custom:<slug>:<model>`), else `provider:model`. */
function currentModelId(session: AgentSession, catalog: readonly CatalogEntry[]): string {
  const provider = session.providerId.toLowerCase();
  const entry = catalog.find((candidate) => candidate.provider.toLowerCase() === provider && candidate.model === session.model);
  return entry?.id ?? modelId(session.providerId, session.model);
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
      currentValue: currentModelId(session, catalog),
      options: modelChoices(session, catalog).map((id, index) => modelOption(id, index, catalog)),
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
 * `invalid_params` for an unknown option or value; the session is not touched here. For
 * `edit_approval_policy` it answers the mode the policy is.
 */
export function validateConfigValue(session: AgentSession, catalog: readonly CatalogEntry[], configId: string, value: unknown): string {
  if (typeof value !== "string") throw invalid(`config option "${configId}" takes a string value`);
  switch (configId) {
    case MODEL_CONFIG_ID: {
      const choices = modelChoices(session, catalog);
      if (choices.includes(value)) return value;
      // today's `<name>:<model>` spelling of a named endpoint's model is still accepted
      const legacy = catalog.find((entry) => modelId(entry.provider, entry.model).toLowerCase() === value.toLowerCase());
      if (legacy) return legacy.id;
      throw invalid(`unknown model "${value}"; pick one of the advertised models`);
    }
    case EFFORT_CONFIG_ID:
      if (!session.supportsReasoningEffort) throw invalid(`the model ${session.model} takes no reasoning effort`);
      if (!isReasoningEffort(value)) throw invalid(`unknown reasoning effort "${value}"; expected one of ${REASONING_EFFORTS.join(", ")}`);
      return value;
    case EDIT_APPROVAL_POLICY_ID: {
      // Hermes' policy names, or the mode ids themselves; anything else is refused (Hermes falls back to ask)
      const mode = Object.hasOwn(EDIT_APPROVAL_POLICIES, value) ? EDIT_APPROVAL_POLICIES[value] : isSessionMode(value) ? value : undefined;
      if (mode) return mode;
      throw invalid(`unknown edit approval policy "${value}"; expected one of ${[...Object.keys(EDIT_APPROVAL_POLICIES), ...SESSION_MODES.map((m) => m.id)].join(", ")}`);
    }
    case MODE_CONFIG_ID:
      if (!isSessionMode(value)) throw invalid(`unknown mode "${value}"; expected one of ${SESSION_MODES.map((m) => m.id).join(", ")}`);
      return value;
    default:
      throw invalid(`unknown config option "${configId}"`);
  }
}
