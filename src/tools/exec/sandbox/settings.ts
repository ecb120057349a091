import type { HermesConfig } from "../../../config/schema.js";
import { DEFAULT_TOOL_CACHES, type SandboxSettings } from "./policy.js";

/**
 * The sandbox settings of a session from its config (read when the session starts) and whether
 * the session is in a read-only mode (plan). Plan mode never gets more than read-only, and an
 * `off` sandbox stays off (plan mode then refuses commands, as it did before there was a sandbox).
 */
export function sandboxSettings(config: HermesConfig, readOnly: boolean): SandboxSettings {
  const section = config.sandbox;
  const mode = section.mode === "off" ? "off" : readOnly ? "read-only" : section.mode;
  return {
    mode,
    network: section.network,
    required: section.required,
    writableRoots: section.writable_roots,
    toolCaches: section.tool_caches ?? DEFAULT_TOOL_CACHES,
    denyRead: section.deny_read,
  };
}
