import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { defaultConfig } from "../../config/schema.js";
import { isGroupAlive, isProcessAlive } from "../process/process-group.js";
import { ToolRegistry, describeCall } from "../registry.js";
import { ToolSessionState } from "../session-state.js";
import { hermesAcpTools } from "../toolsets.js";
import type { ToolContext, ToolResult } from "../types.js";
import { createTerminalTool, terminalTool, type TerminalDetails } from "./terminal.js";

let dir: string;
const states: ToolSessionState[] = [];

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "terminal-")));
});

afterEach(async () => {
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

/**
 * A context whose commands run without the sandbox: the process-group tests read pids from
 * inside the command, which a sandbox's own PID namespace would renumber (sandbox.test.ts checks
 * that sandboxed commands leave nothing behind).
 */
function unconfined(overrides: Partial<ToolContext> = {}): ToolContext {
  const base = ctx(overrides);
  return { ...base, sandbox: { ...base.sandbox, mode: "off" } };
}

interface TerminalOutput {
  output: string;
  exit_code: number;
  error?: string;
  exit_code_meaning?: string;
  note?: string;
}

async function run(args: Record<string, unknown>, context: ToolContext, tool = terminalTool): Promise<ToolResult & { json: TerminalOutput; info: TerminalDetails }> {
  const result = await tool.execute(tool.params.parse(args), context);
  return { ...result, json: JSON.parse(result.content) as TerminalOutput, info: result.details as TerminalDetails };
}

/** Polls until `condition` holds; the suite's test timeout is the only limit. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await delay(20);
}

describe("terminal tool", () => {
  it("is an execute tool titled with the full command, with no locations", () => {
    expect(terminalTool.kind).toBe("execute");
    expect(terminalTool.mutating).toBe(true);
    const command = `npm test -- --grep ${"x".repeat(120)}`;
    expect(describeCall(terminalTool, "terminal", { command }, { cwd: dir })).toEqual({ title: `terminal: ${command}`, locations: [] });
  });

  it("is in the hermes-acp toolset with a JSON schema", () => {
    const registry = new ToolRegistry(hermesAcpTools());
    const schema = registry.schemas().find((entry) => entry.name === "terminal");
    expect(schema?.parameters).toMatchObject({ type: "object", required: ["command"] });
    expect(registry.names()).toContain("process");
  });

  it("runs in the session cwd and merges stderr into stdout in order, without ANSI escapes", async () => {
    const result = await run({ command: "pwd; echo out; echo err >&2; printf '\\033[32mgreen\\033[0m\\n'" }, ctx());
    expect(result.isError).toBeFalsy();
    expect(result.json).toEqual({ output: `${dir}\nout\nerr\ngreen`, exit_code: 0 });
    expect(result.info).toEqual({ command: expect.any(String), cwd: dir, exitCode: 0, output: `${dir}\nout\nerr\ngreen`, sandbox: "workspace-write" });
  });

  it("keeps the cwd and exported variables between calls of one session, and only of that session", async () => {
    mkdirSync(path.join(dir, "persist", "deep"), { recursive: true });
    const session = ctx();
    await run({ command: "cd persist/deep && export GREETING='hello world' && LOCAL_ONLY=1" }, session);
    const second = await run({ command: 'pwd; echo "$GREETING|${LOCAL_ONLY-unset}"' }, session);
    expect(second.json.output).toBe(`${path.join(dir, "persist", "deep")}\nhello world|unset`);
    expect(second.info.cwd).toBe(path.join(dir, "persist", "deep"));

    await run({ command: "unset GREETING; cd .." }, session);
    expect((await run({ command: 'pwd; echo "${GREETING-gone}"' }, session)).json.output).toBe(`${path.join(dir, "persist")}\ngone`);

    const other = await run({ command: 'pwd; echo "${GREETING-none}"' }, ctx());
    expect(other.json.output).toBe(`${dir}\nnone`);
  });

  it("records the state even when the command exits early with a code", async () => {
    mkdirSync(path.join(dir, "early"), { recursive: true });
    const session = ctx();
    const result = await run({ command: "cd early; export EARLY=yes; exit 3" }, session);
    expect(result.json.exit_code).toBe(3);
    expect((await run({ command: "pwd; echo $EARLY" }, session)).json.output).toBe(`${path.join(dir, "early")}\nyes`);
  });

  it("survives a syntax error in the command", async () => {
    const session = ctx();
    const broken = await run({ command: "echo 'unclosed" }, session);
    expect(broken.json.exit_code).toBe(2);
    expect(broken.json.output).toMatch(/unexpected EOF/);
    expect((await run({ command: "echo fine" }, session)).json).toEqual({ output: "fine", exit_code: 0 });
  });

  it("runs one command in workdir without moving the session's shell", async () => {
    mkdirSync(path.join(dir, "wd"), { recursive: true });
    const session = ctx();
    const result = await run({ command: "pwd", workdir: "wd" }, session);
    expect(result.json.output).toBe(path.join(dir, "wd"));
    expect((await run({ command: "pwd" }, session)).json.output).toBe(dir);
    const missing = await run({ command: "pwd", workdir: path.join(dir, "nope") }, session);
    expect(missing.isError).toBe(true);
    expect(missing.json.error).toMatch(/workdir does not exist/);
  });

  it("explains common non-zero exit codes", async () => {
    const session = ctx();
    const grep = await run({ command: "echo abc | grep xyz" }, session);
    expect(grep.isError).toBeFalsy();
    expect(grep.json).toMatchObject({ exit_code: 1, exit_code_meaning: "No matches found (not an error)" });
    const missing = await run({ command: "definitely-not-a-command-xyz" }, session);
    expect(missing.json).toMatchObject({ exit_code: 127, exit_code_meaning: expect.stringMatching(/not found/) });
    expect(missing.json.output).toMatch(/command not found/);
    expect((await run({ command: "diff <(echo a) <(echo b) >/dev/null" }, session)).json.exit_code_meaning).toMatch(/differ/);
  });

  it("gives children /dev/null as stdin and HERMES_SESSION_ID in the environment", async () => {
    const result = await run({ command: "cat; echo \"id=$HERMES_SESSION_ID\"" }, ctx({ sessionId: "sess-42" }));
    expect(result.json.output).toBe("id=sess-42");
  });

  it("keeps the first 40 % and last 60 % of long output with a marker", async () => {
    const result = await run({ command: "printf 'H%.0s' $(seq 1 30000); printf 'T%.0s' $(seq 1 90000)" }, ctx());
    const output = result.json.output;
    expect(output.startsWith("H".repeat(20_000) + "\n\n... [OUTPUT TRUNCATED - 70000 chars omitted out of 120000 total] ...")).toBe(true);
    expect(output.endsWith("T".repeat(30_000))).toBe(true);
    expect(result.info.output).toBe(output);
  });

  it("kills the process group on timeout and says it timed out", async () => {
    const pidFile = path.join(dir, "timeout.pid");
    const result = await run({ command: `sleep 30 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; sleep 30`, timeout: 1.5 }, unconfined());
    expect(result.isError).toBe(true);
    expect(result.json.exit_code).toBe(124);
    expect(result.json.error).toMatch(/timed out after 1.5s/);
    expect(result.info.timedOut).toBe(true);
    const [child, shell] = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    expect(isProcessAlive(child!)).toBe(false);
    expect(isGroupAlive(shell!)).toBe(false);
  });

  it("clamps the timeout to the configured maximum and says so", async () => {
    const result = await run({ command: "true", timeout: 5000 }, ctx());
    expect(result.json.note).toBe("timeout capped at 600s; use background=true for longer commands");
  });

  it("kills the whole process group at once when cancelled, leaving nothing behind", async () => {
    const controller = new AbortController();
    const pidFile = path.join(dir, "cancel.pid");
    const pending = run({ command: `sleep 30 & echo "$! $$" > ${pidFile}; sleep 30` }, unconfined({ signal: controller.signal }));
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").includes("\n"));
    const [child, shell] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    expect(isProcessAlive(child!)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.json.exit_code).toBe(130);
    expect(result.info.interrupted).toBe(true);
    expect(isProcessAlive(child!)).toBe(false);
    expect(isProcessAlive(shell!)).toBe(false);
    expect(isGroupAlive(shell!)).toBe(false);
  });

  it("escalates to SIGKILL for processes that ignore SIGTERM", async () => {
    const controller = new AbortController();
    const pidFile = path.join(dir, "stubborn.pid");
    const pending = run({ command: `trap '' TERM; sleep 30 & echo "$! $$" > ${pidFile}; wait` }, unconfined({ signal: controller.signal }));
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").includes("\n"));
    const [child, shell] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    controller.abort();
    await pending;
    expect(isProcessAlive(child!)).toBe(false);
    expect(isGroupAlive(shell!)).toBe(false);
  });

  it("stops processes a foreground command leaves running and says so", async () => {
    const pidFile = path.join(dir, "stray.pid");
    const result = await run({ command: `sleep 30 & echo $! > ${pidFile}; echo done` }, unconfined());
    expect(result.json.output).toMatch(/^done\n\[processes the command left running/);
    expect(isProcessAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("does not start anything when already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = path.join(dir, "never-cancelled");
    const result = await run({ command: `touch ${marker}` }, ctx({ signal: controller.signal }));
    expect(result.isError).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("terminal tool and dangerous commands", () => {
  const tool = createTerminalTool({
    detect: (command) => {
      if (command.includes("hardline-marker")) return { kind: "hardline", patternKey: "test_hardline", description: "wipe everything" };
      if (command.includes("danger-marker")) return { kind: "dangerous", patternKey: "test_danger", description: "risky thing" };
      return undefined;
    },
  });

  it("asks before running anything from inside HERMES_HOME (relative writes there are invisible to the path rules)", async () => {
    const home = path.join(dir, "hermes-home");
    mkdirSync(home, { recursive: true });
    const asked: string[] = [];
    const context = ctx({ hermesHome: home, ports: { approveCommand: async (request) => (asked.push(request.patternKey), false) } });
    const result = await run({ command: "echo 'approvals: {mode: off}' > config.yaml", workdir: home }, context);
    expect(result.isError).toBe(true);
    expect(asked).toEqual(["protected_cwd"]);
    expect(existsSync(path.join(home, "config.yaml"))).toBe(false);
  });

  it("never runs a hardline command and does not ask", async () => {
    let asked = false;
    const approveCommand = async (): Promise<boolean> => (asked = true);
    const marker = path.join(dir, "hardline-marker");
    const result = await run({ command: `touch ${marker}` }, ctx({ ports: { approveCommand } }), tool);
    expect(result.isError).toBe(true);
    expect(result.json.error).toBe("blocked: wipe everything; this command is never run");
    expect(result.info.refused).toEqual({ reason: "hardline", patternKey: "test_hardline" });
    expect(asked).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it("does not run a denied command and tells the model not to work around it", async () => {
    const marker = path.join(dir, "danger-marker-denied");
    const result = await run({ command: `touch ${marker}` }, ctx({ ports: { approveCommand: async () => false } }), tool);
    expect(result.isError).toBe(true);
    expect(result.json.error).toMatch(/user denied.*Do not retry/s);
    expect(existsSync(marker)).toBe(false);
  });

  it("runs an approved command and notes the approval", async () => {
    const marker = path.join(dir, "danger-marker-approved");
    const result = await run({ command: `touch ${marker}` }, ctx({ ports: { approveCommand: async () => true } }), tool);
    expect(result.isError).toBeFalsy();
    expect(existsSync(marker)).toBe(true);
    expect(result.info.approval).toMatchObject({ patternKey: "test_danger", via: "user" });
  });

  it("runs allowlisted patterns without asking", async () => {
    const marker = path.join(dir, "danger-marker-allowlisted");
    const config = { ...defaultConfig(), command_allowlist: ["test_danger"] };
    const result = await run({ command: `touch ${marker}` }, ctx({ config }), tool);
    expect(result.isError).toBeFalsy();
    expect(existsSync(marker)).toBe(true);
  });
});
