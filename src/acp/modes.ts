import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk/unstable";
import { SESSION_MODES, type SessionMode } from "../runtime/edit-policy.js";

export const MODE_CONFIG_ID = "mode";

/** The session's modes as ACP `modes` (for clients using `session/set_mode`). */
export function modeState(current: SessionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: SESSION_MODES.map((mode) => ({ id: mode.id, name: mode.name, description: mode.description })),
  };
}

/** The same choice as a config option of category `mode` (for clients using config options). */
export function configOptions(current: SessionMode): SessionConfigOption[] {
  return [
    {
      id: MODE_CONFIG_ID,
      name: "Mode",
      description: "How file edits are approved, or plan mode (read-only).",
      category: "mode",
      type: "select",
      currentValue: current,
      options: SESSION_MODES.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
    },
  ];
}
