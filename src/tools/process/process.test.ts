import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { describeCall } from "../registry.js";
import { ToolSessionState } from "../session-state.js";
import { terminalTool, type TerminalDetails } from "../terminal/terminal.js";
import type { ToolContext, ToolResult } from "../types.js";
import { isGroupAlive, killAllProcesses, trackedGroups } from "./process-group.js";
import { processTool, type ProcessDetails } from "./process.js";
import { processRegistry } from "./registry.js";

let dir: string;
const states: ToolSessionState[] = [];

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "process-")));
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

type Json = Record<string, unknown> & { output?: string; status?: string; exit_code?: number | null; error?: string };

async function call(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult & { json: Json; info: ProcessDetails }> {
  const result = await processTool.execute(processTool.params.parse(args), context);
  return { ...result, json: JSON.parse(result.content) as Json, info: result.details as ProcessDetails };
}

/** Starts `command` with terminal(background=true); returns its process id and pid. */
async function background(command: string, context: ToolContext): Promise<{ id: string; pid: number; result: ToolResult }> {
  const result = await terminalTool.execute(terminalTool.params.parse({ command, background: true }), context);
  const details = result.details as TerminalDetails;
  if (!details.background) throw new Error(`not started: ${result.content}`);
  return { ...details.background, result };
}

/** Polls until `condition` holds; the suite's test timeout is the only limit. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await delay(20);
}

describe("process tool", () => {
  it("checks text sent to a background shell like a terminal command, so a denied command cannot slip through", async () => {
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    const asked: string[] = [];
    const context = ctx({
      ports: {
        approveCommand: async (request) => {
          asked.push(request.command);
          return false;
        },
      },
    });
    const shell = await background("bash", context);
    const refused = await call({ action: "submit", session_id: shell.id, data: `rm -rf ${target}` }, context);
    expect(refused.isError).toBe(true);
    expect(asked).toEqual([`rm -rf ${target}`]);
    await call({ action: "submit", session_id: shell.id, data: "echo still-here" }, context);
    await until(async () => (await call({ action: "log", session_id: shell.id }, context)).json.output?.includes("still-here") === true);
    expect(realpathSync(target)).toBe(target);
  });

  it("is an execute tool titled by action and id", () => {
    expect(processTool.kind).toBe("execute");
    expect(processTool.mutating).toBe(true);
    expect(describeCall(processTool, "process", { action: "poll", session_id: "proc_1" }, { cwd: dir }).title).toBe("process poll: proc_1");
    expect(describeCall(processTool, "process", { action: "list" }, { cwd: dir })).toEqual({ title: "process list", locations: [] });
  });

  it("background terminal returns at once with an id, a pid and status running", async () => {
    const session = ctx();
    const started = await background("sleep 30", session);
    const json = JSON.parse(started.result.content) as Json;
    expect(json).toMatchObject({ session_id: started.id, pid: started.pid, status: "running" });
    expect(started.id).toMatch(/^proc_[0-9a-f]{12}$/);
    expect(isGroupAlive(started.pid)).toBe(true);
    const list = await call({ action: "list" }, session);
    expect(list.info).toMatchObject({ action: "list", processes: [{ session_id: started.id, status: "running", command: "sleep 30", cwd: dir }] });
  });

  it("starts in the shell's current directory with its exported variables", async () => {
    mkdirSync(path.join(dir, "bg"), { recursive: true });
    const session = ctx();
    await terminalTool.execute(terminalTool.params.parse({ command: "cd bg && export BG_VAR=carried" }), session);
    const { id } = await background('pwd; echo "$BG_VAR $HERMES_SESSION_ID"', session);
    const waited = await call({ action: "wait", session_id: id }, session);
    expect(waited.json).toMatchObject({ status: "exited", exit_code: 0, output: `${path.join(dir, "bg")}\ncarried test-session\n` });
  });

  it("poll returns only the output that is new since the last poll", async () => {
    const session = ctx();
    const { id } = await background("echo first; read _; echo second; read _", session);
    await until(async () => (await call({ action: "log", session_id: id }, session)).json.output === "first");
    expect((await call({ action: "poll", session_id: id }, session)).json).toMatchObject({ status: "running", output: "first\n" });
    await call({ action: "submit", session_id: id, data: "" }, session);
    let seen = "";
    await until(async () => {
      seen += (await call({ action: "poll", session_id: id }, session)).json.output ?? "";
      return seen.includes("second");
    });
    expect(seen).toBe("second\n");
    expect((await call({ action: "poll", session_id: id }, session)).json.output).toBe("");
  });

  it("write, submit and close feed the process's stdin", async () => {
    const session = ctx();
    const { id } = await background("while read line; do echo \"got:$line\"; done; echo eof", session);
    expect((await call({ action: "write", session_id: id, data: "par" }, session)).isError).toBeFalsy();
    await call({ action: "submit", session_id: id, data: "tial" }, session);
    expect((await call({ action: "close", session_id: id }, session)).json).toMatchObject({ stdin: "closed" });
    const waited = await call({ action: "wait", session_id: id, timeout: 30 }, session);
    expect(waited.json).toMatchObject({ status: "exited", exit_code: 0, output: "got:partial\neof\n" });
    const late = await call({ action: "submit", session_id: id, data: "again" }, session);
    expect(late.isError).toBe(true);
    expect(late.json.error).toMatch(/has ended/);
  });

  it("log pages by lines: the last lines by default, or offset and limit", async () => {
    const session = ctx();
    const { id } = await background("seq 1 500", session);
    await call({ action: "wait", session_id: id }, session);
    const tail = await call({ action: "log", session_id: id }, session);
    expect(tail.json).toMatchObject({ total_lines: 500, offset: 300, lines_returned: 200 });
    expect(tail.json.output?.split("\n")[0]).toBe("301");
    const page = await call({ action: "log", session_id: id, offset: 10, limit: 3 }, session);
    expect(page.json).toMatchObject({ output: "11\n12\n13", hint: "more lines follow; use offset=13" });
    expect(page.info).toMatchObject({ action: "log", offset: 10, limit: 3, totalLines: 500 });
  });

  it("wait gives up after its timeout and reports the process still running", async () => {
    const session = ctx();
    const { id } = await background("sleep 30", session);
    const waited = await call({ action: "wait", session_id: id, timeout: 0.2 }, session);
    expect(waited.isError).toBeFalsy();
    expect(waited.json).toMatchObject({ status: "running", exit_code: null, note: expect.stringMatching(/still running/) });
    expect(waited.info).toMatchObject({ action: "wait", timedOut: true });
  });

  it("wait stops when the turn is cancelled, leaving the process running", async () => {
    const session = ctx();
    const controller = new AbortController();
    const { id, pid } = await background("sleep 30", session);
    const pending = call({ action: "wait", session_id: id }, { ...session, signal: controller.signal });
    controller.abort();
    expect((await pending).info).toMatchObject({ interrupted: true });
    expect(isGroupAlive(pid)).toBe(true);
  });

  it("kill stops the whole process group", async () => {
    const session = ctx();
    const { id, pid } = await background("sleep 30 & sleep 30; wait", session);
    const killed = await call({ action: "kill", session_id: id }, session);
    expect(killed.json).toMatchObject({ session_id: id, status: "killed" });
    expect(isGroupAlive(pid)).toBe(false);
    const again = await call({ action: "kill", session_id: id }, session);
    expect(again.json).toMatchObject({ status: "killed", note: "the process had already ended" });
  });

  it("reports unknown ids and a missing session_id as fixable errors", async () => {
    const session = ctx();
    const unknown = await call({ action: "poll", session_id: "proc_nope" }, session);
    expect(unknown.isError).toBe(true);
    expect(unknown.json.error).toMatch(/No background process "proc_nope"/);
    const missing = await call({ action: "log" }, session);
    expect(missing.isError).toBe(true);
    expect(missing.json.error).toMatch(/session_id is required/);
  });

  it("keeps processes per session", async () => {
    const first = ctx();
    const { id } = await background("sleep 30", first);
    expect((await call({ action: "list" }, ctx())).json).toEqual({ processes: [] });
    expect((await call({ action: "poll", session_id: id }, ctx())).isError).toBe(true);
  });

  it("kills every process of a session when the session state is disposed", async () => {
    const state = new ToolSessionState();
    const session = toolContext({ cwd: dir, state });
    const a = await background("sleep 30", session);
    const b = await background("sleep 30 & wait", session);
    expect(isGroupAlive(a.pid) && isGroupAlive(b.pid)).toBe(true);
    await state.dispose();
    expect(isGroupAlive(a.pid)).toBe(false);
    expect(isGroupAlive(b.pid)).toBe(false);
    expect(trackedGroups()).not.toContain(a.pid);
  });

  it("killAllProcesses stops every tracked group at once", async () => {
    const session = ctx();
    const { pid } = await background("sleep 30", session);
    killAllProcesses();
    await until(() => !isGroupAlive(pid));
    await until(() => !processRegistry(session.state).list()[0]?.running);
    expect(trackedGroups()).not.toContain(pid);
  });

  it("keeps the tail of long output within the buffer cap and says what was dropped", async () => {
    const session = ctx();
    const { id } = await background("yes xxxxxxxxx | head -c 250000; echo; echo END", session);
    const waited = await call({ action: "wait", session_id: id }, session);
    expect(waited.info).toMatchObject({ lostChars: 250_005 - 200_000 });
    expect(waited.json.output).toMatch(/^\[50005 earlier chars were dropped/);
    expect(waited.json.output).toMatch(/END\n$/);
  });
});
