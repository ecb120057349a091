import { RequestError, type SetSessionConfigOptionRequest, type SetSessionConfigOptionResponse } from "@agentclientprotocol/sdk/unstable";
import type { Runtime } from "../runtime/runtime.js";
import { isSessionMode, SESSION_MODES, type SessionMode } from "../runtime/edit-policy.js";
import { HermesError } from "../shared/errors.js";
import { EFFORT_CONFIG_ID, MODEL_CONFIG_ID, MODE_CONFIG_ID, sessionConfigOptions, validateConfigValue } from "./config-options.js";
import type { LiveSession, SessionManager } from "./session-manager.js";
import type { ReasoningEffort } from "../llm/catalog.js";
import type { ResolvedProvider } from "../llm/types.js";
import { sendConfigOptions } from "./session-status.js";

function busy(): RequestError {
  return new RequestError(-32603, "Session is busy; switch models while the session is idle");
}

/**
 * `session/set_config_option`: validates against what is advertised (unknown id or value →
 * invalid params, session unchanged), applies, and answers the whole option list. Changing the
 * model of a busy session is an error.
 */
export async function handleSetConfigOption(runtime: Runtime, sessions: SessionManager, params: SetSessionConfigOptionRequest): Promise<SetSessionConfigOptionResponse> {
  const live = sessions.get(params.sessionId);
  const catalog = runtime.catalogSnapshot();
  const value = validateConfigValue(live.session, catalog, params.configId, params.value);
  switch (params.configId) {
    case MODEL_CONFIG_ID:
      // The answer carries the new option list; no config_option_update besides.
      await switchSessionModel(runtime, live, value, { announce: false, held: false });
      break;
    case EFFORT_CONFIG_ID:
      live.session.setReasoningEffort(value as ReasoningEffort);
      break;
    case MODE_CONFIG_ID:
      setSessionMode(runtime, live, value as SessionMode, "config_option");
      break;
  }
  return { configOptions: sessionConfigOptions(live.session, catalog) };
}

/**
 * The one way a live session's model changes (picker, legacy `session/set_model`, `/model`):
 * refuses while a turn holds the session (unless the caller is what holds it: `held`), switches
 * from the next turn, and with `announce` sends the new option list as `config_option_update`.
 * Rejects with the runtime's error (invalid value, unusable provider), the session unchanged.
 */
export async function switchSessionModel(
  runtime: Runtime,
  live: LiveSession,
  value: string,
  options: { announce: boolean; held: boolean },
): Promise<ResolvedProvider> {
  if (!options.held && live.isRunning) throw busy();
  const resolved = await runtime.sessions.switchModel(live.session, value);
  if (options.announce) sendConfigOptions(live, sessionConfigOptions(live.session, runtime.catalogSnapshot()));
  return resolved;
}

/**
 * The one way a live session's mode changes. The client that asked learns it from its answer;
 * the other picker is told: `config_option_update` after `session/set_mode`,
 * `current_mode_update` after the mode config option.
 */
export function setSessionMode(runtime: Runtime, live: LiveSession, mode: SessionMode, via: "set_mode" | "config_option"): void {
  live.session.approvals.mode = mode;
  if (via === "set_mode") sendConfigOptions(live, sessionConfigOptions(live.session, runtime.catalogSnapshot()));
  else live.updates.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
}

/** `session/set_mode` (clients that use modes rather than config options). */
export function handleSetMode(runtime: Runtime, sessions: SessionManager, sessionId: string, modeId: string): Record<string, never> {
  const live = sessions.get(sessionId);
  if (!isSessionMode(modeId)) {
    throw new HermesError("invalid_params", `unknown mode "${modeId}"; expected one of ${SESSION_MODES.map((m) => m.id).join(", ")}`);
  }
  setSessionMode(runtime, live, modeId, "set_mode");
  return {};
}

/**
 * Legacy `session/set_model {sessionId, modelId}` (older clients): any model the runtime can
 * resolve (`provider:model`, or a model on the current provider). Busy → error; unusable →
 * invalid params, session unchanged. The new option list follows as `config_option_update`.
 */
export async function handleSetModel(runtime: Runtime, live: LiveSession, modelId: string): Promise<Record<string, never>> {
  await switchSessionModel(runtime, live, modelId, { announce: true, held: false });
  return {};
}

/** Params of `session/set_model`, checked by hand (the method is not in the SDK's schema). */
export function parseSetModelParams(params: unknown): { sessionId: string; modelId: string } {
  const value = params as { sessionId?: unknown; modelId?: unknown } | null;
  if (!value || typeof value.sessionId !== "string" || typeof value.modelId !== "string") {
    throw RequestError.invalidParams(undefined, "session/set_model takes {sessionId, modelId} strings");
  }
  return { sessionId: value.sessionId, modelId: value.modelId };
}
