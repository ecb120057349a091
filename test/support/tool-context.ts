import { tmpdir } from "node:os";
import { defaultConfig } from "../../src/config/schema.js";
import { sandboxSettings } from "../../src/tools/exec/sandbox/settings.js";
import { ToolSessionState } from "../../src/tools/session-state.js";
import type { ToolContext } from "../../src/tools/types.js";

/** A complete ToolContext for tool tests; every field can be overridden. Ports default to none (deny). */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionId: "test-session",
    callId: "call_test",
    cwd: overrides.cwd ?? tmpdir(),
    hermesHome: overrides.hermesHome ?? `${tmpdir()}/hermes-home-unused`,
    config: defaultConfig(),
    sandbox: sandboxSettings(overrides.config ?? defaultConfig(), false),
    signal: new AbortController().signal,
    ports: {},
    state: new ToolSessionState(),
    ...overrides,
  };
}
