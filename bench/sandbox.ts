import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { defaultConfig } from "../src/config/schema.js";
import { sandboxAvailability } from "../src/tools/exec/sandbox/availability.js";
import { sandboxSettings } from "../src/tools/exec/sandbox/settings.js";
import { ToolSessionState } from "../src/tools/session-state.js";
import { terminalTool } from "../src/tools/terminal/terminal.js";
import type { ToolContext } from "../src/tools/types.js";

export interface SandboxCost {
  /** Round trip of a terminal call of `true`, unconfined and sandboxed, alternating, in ms. */
  plain: number[];
  sandboxed: number[];
  /** What confines commands here. */
  kind: string;
}

/**
 * The per-command cost of the sandbox: the terminal tool running `true` with `sandbox.mode: off`
 * and with the default `workspace-write`, `runs` times each, alternating, after one warm-up each
 * (the first call probes bwrap). Throws when no sandbox is available.
 */
export async function measureSandboxCost(runs: number): Promise<SandboxCost> {
  const available = await sandboxAvailability();
  if (available.kind === "none") throw new Error(`no sandbox here: ${available.reason}`);
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "bench-sandbox-")));
  const config = defaultConfig();
  const off = sandboxSettings({ ...config, sandbox: { ...config.sandbox, mode: "off" } }, false);
  const on = sandboxSettings(config, false);
  const state = new ToolSessionState();
  const context = (sandbox: ToolContext["sandbox"]): ToolContext => ({
    sessionId: "bench",
    callId: "bench",
    cwd: workspace,
    hermesHome: join(workspace, ".hermes-unused"),
    config,
    sandbox,
    signal: new AbortController().signal,
    ports: {},
    state,
  });
  const once = async (sandbox: ToolContext["sandbox"]): Promise<number> => {
    const start = performance.now();
    const result = await terminalTool.execute({ command: "true" }, context(sandbox));
    const elapsed = performance.now() - start;
    if (result.isError) throw new Error(`terminal failed: ${result.content}`);
    return elapsed;
  };
  try {
    await once(off);
    await once(on);
    const plain: number[] = [];
    const sandboxed: number[] = [];
    for (let i = 0; i < runs; i++) {
      plain.push(await once(off));
      sandboxed.push(await once(on));
    }
    return { plain, sandboxed, kind: available.kind };
  } finally {
    await state.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
}
