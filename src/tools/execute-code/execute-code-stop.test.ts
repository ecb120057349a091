import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleepers } from "../../../test/support/processes.js";
import { sandboxUsable } from "../../../test/support/sandbox.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { defaultConfig } from "../../config/schema.js";
import { sandboxSettings } from "../exec/sandbox/settings.js";
import type { InnerToolsPort } from "../ports.js";
import { trackedGroups } from "../process/process-group.js";
import { ToolSessionState } from "../session-state.js";
import type { ToolContext } from "../types.js";
import type { ExecuteCodeDetails, ExecuteCodeProgress } from "./details.js";
import { executeCode } from "./execute-code.js";

const usable = await sandboxUsable();

let root: string;
let workspace: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "exec-stop-")));
  workspace = join(root, "workspace");
  mkdirSync(workspace, { recursive: true });
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function ctx(overrides: Partial<ToolContext<ExecuteCodeProgress>> & { timeout?: number } = {}): ToolContext<ExecuteCodeProgress> {
  const { timeout, ...rest } = overrides;
  const config = defaultConfig();
  if (timeout !== undefined) (config as Record<string, unknown>).code_execution = { timeout };
  return toolContext({ cwd: workspace, hermesHome: join(root, "home"), state: new ToolSessionState(), config, sandbox: sandboxSettings(config, false), ...rest }) as ToolContext<ExecuteCodeProgress>;
}

/** A script that starts a `sleep <marker>` child, optionally calls read_file, then sleeps. */
function sleeper(marker: string, callFirst = false): string {
  return [
    "import subprocess, time",
    ...(callFirst ? ["from hermes_tools import read_file"] : []),
    `child = subprocess.Popen(['sleep', '${marker}'])`,
    "print('started', flush=True)",
    ...(callFirst ? ["print(read_file('x.txt'))"] : []),
    "time.sleep(120)",
  ].join("\n");
}

describe.skipIf(!usable)("execute_code stopping", () => {
  it("kills the script and everything it started at code_execution.timeout", async () => {
    const marker = "731301";
    const result = await executeCode({ code: sleeper(marker) }, ctx({ timeout: 1 }), () => undefined);
    const body = JSON.parse(result.content) as Record<string, unknown>;
    expect(result.isError).toBe(true);
    expect(body).toMatchObject({ status: "timeout", error: "Script timed out after 1s and was killed." });
    expect(String(body.output)).toBe("started\n\n⏰ Script timed out after 1s and was killed.");
    expect((result.details as ExecuteCodeDetails).exitCode).toBe(124);
    expect(sleepers(marker)).toEqual([]);
    expect(trackedGroups()).toEqual([]);
  });

  it("on cancel kills the script and cancels the inner call in flight", async () => {
    const marker = "731302";
    const controller = new AbortController();
    let innerSignal: AbortSignal | undefined;
    const port: InnerToolsPort = {
      names: () => ["read_file"],
      invoke: (_name, _args, signal) =>
        new Promise((resolve) => {
          innerSignal = signal;
          signal.addEventListener("abort", () => resolve({ content: "cancelled", isError: true }), { once: true });
          controller.abort();
        }),
    };
    const result = await executeCode({ code: sleeper(marker, true) }, ctx({ signal: controller.signal, ports: { innerTools: port } }), () => undefined);
    const body = JSON.parse(result.content) as Record<string, unknown>;
    expect(result.isError).toBe(true);
    expect(body).toMatchObject({ status: "interrupted", tool_calls_made: 1 });
    expect(String(body.output)).toContain("[execution interrupted");
    expect(innerSignal?.aborted).toBe(true);
    expect((result.details as ExecuteCodeDetails).exitCode).toBe(130);
    expect(sleepers(marker)).toEqual([]);
    expect(trackedGroups()).toEqual([]);
  });

  it("does not start a script when the turn is already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await executeCode({ code: "print('never')" }, ctx({ signal: controller.signal }), () => undefined);
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content)).toMatchObject({ status: "interrupted" });
  });
});
