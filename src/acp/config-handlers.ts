import { RequestError, type SetSessionConfigOptionRequest, type SetSessionConfigOptionResponse } from "@agentclientprotocol/sdk/unstable";
import type { Runtime } from "../runtime/runtime.js";
import { isSessionMode, SESSION_MODES, type SessionMode } from "../runtime/edit-policy.js";
import { HermesError } from "../shared/errors.js";
import { canonicalConfigId, EFFORT_CONFIG_ID, MODEL_CONFIG_ID, MODE_CONFIG_ID, sessionConfigOptions, validateConfigValue } from "./config-options.js";
import type { LiveSession, SessionManager } from "./session-manager.js";
import type { ReasoningEffort } from "../llm/catalog.js";
import type { ResolvedProvider } from "../llm/types.js";
import { sendConfigOptions } from "./session-status.js";

function busy(): RequestError {
  return new RequestError(-32603, "Session is busy; switch models while the session is idle");
}

/**
 * `session/set_config_option`: validates against what is advertised (unknown id or value →
 * invalid params, session unchanged), applies, and answers the whole option list. Hermes'
 * `edit_approval_policy` id is the `mode` option under another name (see `canonicalConfigId`).
 * Every change is also echoed (`echoConfigOptions`), so a second picker showing the session
 * (or a client that ignores the answer) stays in step. Changing the model of a busy session is
 * an error.
 */
export async function handleSetConfigOption(runtime: Runtime, sessions: SessionManager, params: SetSessionConfigOptionRequest): Promise<SetSessionConfigOptionResponse> {
  const live = sessions.get(params.sessionId);
  const catalog = runtime.catalogSnapshot();
  const configId = canonicalConfigId(params.configId);
  const value = validateConfigValue(live.session, catalog, params.configId, params.value);
  switch (configId) {
    case MODEL_CONFIG_ID:
      await switchSessionModel(runtime, live, value, { announce: true, held: false });
      break;
    case EFFORT_CONFIG_ID:
      live.session.setReasoningEffort(value as ReasoningEffort);
      echoConfigOptions(runtime, live);
      break;
    case MODE_CONFIG_ID:
      setSessionMode(runtime, live, value as SessionMode);
      break;
  }
  return { configOptions: sessionConfigOptions(live.session, runtime.catalogSnapshot()) };
}

/** Sends the session's whole option list as `config_option_update`. Never throws. */
export function echoConfigOptions(runtime: Runtime, live: LiveSession): void {
  sendConfigOptions(live, sessionConfigOptions(live.session, runtime.catalogSnapshot()));
}

/**
 * The one way a live session's model changes (picker, legacy `session/set_model`, `/model`):
 * refuses while a turn holds the session (unless the caller is what holds it: `held`), switches
 * from the next turn, and with `announce` sends the new option list as `config_option_update`
 * (the effort option comes and goes with the model). Rejects with the runtime's error (invalid
 * value, unusable provider), the session unchanged and nothing sent.
 */
export async function switchSessionModel(
  runtime: Runtime,
  live: LiveSession,
  value: string,
  options: { announce: boolean; held: boolean },
): Promise<ResolvedProvider> {
  if (!options.held && live.isRunning) throw busy();
  const resolved = await runtime.sessions.switchModel(live.session, value);
  if (options.announce) echoConfigOptions(runtime, live);
  return resolved;
}

/**
 * The one way a live session's mode changes, whoever asks (`session/set_mode`, the `mode` /
 * `edit_approval_policy` config option): both pickers are told, `config_option_update` for
 * clients showing config options and `current_mode_update` for clients showing `modes`, in that
 * order, before the request is answered.
 */
export function setSessionMode(runtime: Runtime, live: LiveSession, mode: SessionMode): void {
  live.session.approvals.mode = mode;
  echoConfigOptions(runtime, live);
  live.updates.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
}

/** `session/set_mode` (clients that use modes rather than config options). */
export function handleSetMode(runtime: Runtime, sessions: SessionManager, sessionId: string, modeId: string): Record<string, never> {
  const live = sessions.get(sessionId);
  if (!isSessionMode(modeId)) {
    throw new HermesError("invalid_params", `unknown mode "${modeId}"; expected one of ${SESSION_MODES.map((m) => m.id).join(", ")}`);
  }
  setSessionMode(runtime, live, modeId);
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

