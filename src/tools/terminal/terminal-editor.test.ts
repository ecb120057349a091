import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { ClientTerminalOutcome, ClientTerminalRequest } from "../ports.js";
import { ToolSessionState } from "../session-state.js";
import type { ToolContext } from "../types.js";
import { ProgressThrottle } from "./progress.js";
import { terminalTool, type TerminalDetails, type TerminalProgress } from "./terminal.js";

/** The terminal tool as the editor sees it: output streamed while it runs, or the editor's own terminal. */
let dir: string;
const states: ToolSessionState[] = [];

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "terminal-editor-")));
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(states.splice(0).map((state) => state.dispose()));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function ctx(overrides: Partial<ToolContext> = {}): ToolContext {
  const state = new ToolSessionState();
  states.push(state);
  return toolContext({ cwd: dir, state, ...overrides });
}

async function run(command: string, context: ToolContext) {
  const result = await terminalTool.execute(terminalTool.params.parse({ command }), context);
  return { ...result, info: result.details as TerminalDetails, json: JSON.parse(result.content) as { output: string; exit_code: number } };
}

/**
 * A stand-in for the editor's terminal that really runs the command here (as an editor on this
 * machine would), with an environment holding a provider key, and records every request.
 */
function localEditorTerminal() {
  const requests: ClientTerminalRequest[] = [];
  const port = (request: ClientTerminalRequest, signal: AbortSignal): Promise<ClientTerminalOutcome> => {
    requests.push(request);
    request.onStarted?.(`term-${requests.length}`);
    return new Promise((resolve) => {
      execFile(request.command, request.args, { cwd: request.cwd, env: { ...process.env, OPENROUTER_API_KEY: "sk-or-v1-secret" }, signal }, (error, stdout) => {
        const code = error && typeof (error as { code?: unknown }).code === "number" ? ((error as { code: number }).code) : 0;
        resolve({ terminalId: `term-${requests.length}`, output: `\u001b[32m${stdout}\u001b[0m`, truncated: false, exitCode: code, timedOut: false, interrupted: signal.aborted });
      });
    });
  };
  return { port, requests };
}

describe("terminal tool with the editor's terminal", () => {
  it("runs the command there, embeds the terminal as soon as it exists, and returns the cleaned output", async () => {
    const editor = localEditorTerminal();
    const progress: unknown[] = [];
    const context = ctx({ ports: { runInClientTerminal: editor.port }, reportProgress: (details) => progress.push(details) });
    const result = await run("echo hi from the editor; exit 3", context);
    expect(result.json).toMatchObject({ output: "hi from the editor", exit_code: 3 });
    expect(result.info).toMatchObject({ terminalId: "term-1", exitCode: 3, cwd: dir });
    expect(progress).toEqual([{ command: "echo hi from the editor; exit 3", cwd: dir, running: true, terminalId: "term-1" } satisfies TerminalProgress]);
    const [request] = editor.requests;
    expect(request).toMatchObject({ command: "env", cwd: dir, timeoutMs: 180_000 });
    expect(request!.args).toContain("bash");
    expect(request!.args).toContain("-u");
  });

  it("keeps cd and export between calls, and hides provider keys from the command", async () => {
    mkdirSync(path.join(dir, "sub"), { recursive: true });
    const editor = localEditorTerminal();
    const context = ctx({ ports: { runInClientTerminal: editor.port } });
    await run("cd sub && export GREETING=hello", context);
    const after = await run('pwd; echo "$GREETING"; echo "key=${OPENROUTER_API_KEY:-none}"', context);
    expect(after.json.output).toBe(`${path.join(dir, "sub")}\nhello\nkey=none`);
  });

  it("turns a failing editor terminal into an error result", async () => {
    const context = ctx({ ports: { runInClientTerminal: async () => Promise.reject(new Error("terminal/create refused")) } });
    const result = await run("echo never", context);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("terminal/create refused");
  });
});

describe("terminal tool output streaming (local bash)", () => {
  it("reports the output so far while the command runs, and nothing after its result", async () => {
    const gate = path.join(dir, "gate");
    const progress: TerminalProgress[] = [];
    let sawFirst = false;
    const context = ctx({
      reportProgress: (details) => {
        const report = details as TerminalProgress;
        progress.push(report);
        if (report.output?.includes("first") && !sawFirst) {
          sawFirst = true;
          writeFileSync(gate, "");
        }
      },
    });
    const command = `echo first; while [ ! -e ${gate} ]; do sleep 0.02; done; echo second`;
    const result = await run(command, context);
    expect(result.json.output).toBe("first\nsecond");
    expect(progress[0]).toEqual({ command, cwd: dir, running: true, output: "first" });
    const count = progress.length;
    await delay(400);
    expect(progress).toHaveLength(count);
    expect(existsSync(gate)).toBe(true);
  });
});

describe("ProgressThrottle", () => {
  it("reports at once, then at most once per interval, always ending with the latest change", () => {
    vi.useFakeTimers();
    const report = vi.fn();
    const throttle = new ProgressThrottle(report, 300);
    throttle.poke();
    expect(report).toHaveBeenCalledTimes(1);
    throttle.poke();
    throttle.poke();
    vi.advanceTimersByTime(299);
    expect(report).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(report).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1000);
    expect(report).toHaveBeenCalledTimes(2);
    throttle.poke();
    expect(report).toHaveBeenCalledTimes(3);
  });

  it("reports nothing after stop, pending or new, and survives a throwing reporter", () => {
    vi.useFakeTimers();
    const report = vi.fn(() => {
      throw new Error("editor gone");
    });
    const throttle = new ProgressThrottle(report, 300);
    throttle.poke();
    throttle.poke();
    throttle.stop();
    vi.advanceTimersByTime(1000);
    throttle.poke();
    expect(report).toHaveBeenCalledTimes(1);
  });
});
