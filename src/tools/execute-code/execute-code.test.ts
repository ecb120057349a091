import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sandboxUsable } from "../../../test/support/sandbox.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { defaultConfig } from "../../config/schema.js";
import { agentTempRoot } from "../exec/agent-temp.js";
import { sandboxSettings } from "../exec/sandbox/settings.js";
import type { CommandApprovalRequest, InnerToolResult, InnerToolsPort } from "../ports.js";
import { ToolSessionState } from "../session-state.js";
import type { ToolContext } from "../types.js";
import type { ExecuteCodeDetails, ExecuteCodeProgress } from "./details.js";
import { createExecuteCodeTool, executeCode } from "./execute-code.js";

const usable = await sandboxUsable();
const execFileAsync = promisify(execFile);

/** No pattern detector: only the sandbox (or the whole-script approval) stands in the way. */
const bare = { detect: () => undefined };

let root: string;
let workspace: string;
let hermesHome: string;
const states: ToolSessionState[] = [];

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "exec-code-")));
  workspace = join(root, "workspace");
  hermesHome = join(root, "hermes-home");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(hermesHome, { recursive: true });
  for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(workspace, name), `${name}\nline two\n`);
});

afterEach(async () => {
  await Promise.all(states.splice(0).map((state) => state.dispose()));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

interface Recorded {
  name: string;
  args: unknown;
}

/** A port answering every call with `answer` (default: the arguments echoed as JSON), recording what was asked. */
function fakePort(
  names: string[] = ["read_file", "write_file", "terminal"],
  answer: (name: string, args: unknown, signal: AbortSignal) => Promise<InnerToolResult> = async (name, args) => ({ content: JSON.stringify({ tool: name, args }), isError: false }),
): InnerToolsPort & { calls: Recorded[] } {
  const calls: Recorded[] = [];
  return {
    calls,
    names: () => names,
    invoke: (name, args, signal) => {
      calls.push({ name, args });
      return answer(name, args, signal);
    },
  };
}

function ctx(overrides: Partial<ToolContext<ExecuteCodeProgress>> & { sandboxOff?: boolean; configure?: (config: Record<string, unknown>) => void } = {}): ToolContext<ExecuteCodeProgress> {
  const { sandboxOff, configure, ...rest } = overrides;
  const state = new ToolSessionState();
  states.push(state);
  const config = defaultConfig();
  if (sandboxOff) config.sandbox.mode = "off";
  configure?.(config as Record<string, unknown>);
  return toolContext({ cwd: workspace, hermesHome, state, config, sandbox: sandboxSettings(config, false), ...rest }) as ToolContext<ExecuteCodeProgress>;
}

async function run(code: string, context: ToolContext<ExecuteCodeProgress>) {
  const result = await executeCode({ code }, context, bare.detect);
  const body = JSON.parse(result.content) as Record<string, unknown>;
  return { result, body, details: result.details as ExecuteCodeDetails };
}

describe.skipIf(!usable)("execute_code in the sandbox", () => {
  it("calls tools through hermes_tools, prints only what the script prints, and reports the calls as progress", async () => {
    const port = fakePort();
    const progress: ExecuteCodeProgress[] = [];
    const code = [
      "# Count the lines of three files",
      "from hermes_tools import read_file",
      "total = 0",
      "for name in ['a.txt', 'b.txt', 'c.txt']:",
      "    result = read_file(name)",
      "    total += len(result['args'])",
      "print('keys seen:', total)",
    ].join("\n");
    const { result, body, details } = await run(code, ctx({ ports: { innerTools: port }, reportProgress: (report) => progress.push(report) }));
    expect(body).toMatchObject({ status: "success", output: "keys seen: 3", tool_calls_made: 3, exit_code: 0 });
    expect(result.isError).toBeUndefined();
    // None-valued parameters are left out, so the tool's own defaults apply.
    expect(port.calls).toEqual([
      { name: "read_file", args: { path: "a.txt" } },
      { name: "read_file", args: { path: "b.txt" } },
      { name: "read_file", args: { path: "c.txt" } },
    ]);
    expect(details).toMatchObject({ status: "success", exitCode: 0, sandbox: "workspace-write", toolCallsMade: 3 });
    expect(details.calls.map((call) => `${call.summary} ${call.status}`)).toEqual(["read_file a.txt ok", "read_file b.txt ok", "read_file c.txt ok"]);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]?.calls[0]).toMatchObject({ tool: "read_file", summary: "read_file a.txt" });
    expect(createExecuteCodeTool().describe({ code }, { cwd: workspace }).title).toBe("execute_code: Count the lines of three files");
  });

  it("gives a failed call's text as {'error': …}, refuses tools outside the list, and strips terminal's escape hatches", async () => {
    const port = fakePort(["read_file", "terminal", "memory"], async (name) =>
      name === "read_file" ? { content: "Blocked in Plan mode: 'read_file'", isError: true } : { content: '{"output": "ok", "exit_code": 0}', isError: false },
    );
    const code = [
      "import json, os",
      "from hermes_tools import read_file, terminal, _call",
      "print(read_file('a.txt'))",
      "print(terminal('ls', workdir='.'))",
      "print(_call('memory', {'action': 'add'}))",
      "print(_call('terminal', {'command': 'ls', 'background': True, 'sandbox': 'off', 'reason': 'x'}))",
    ].join("\n");
    const { body, details } = await run(code, ctx({ ports: { innerTools: port } }));
    const lines = String(body.output).split("\n");
    expect(lines[0]).toBe("{'error': \"Blocked in Plan mode: 'read_file'\"}");
    expect(lines[1]).toBe("{'output': 'ok', 'exit_code': 0}");
    expect(lines[2]).toContain("Tool 'memory' is not available in execute_code. Available: read_file, terminal");
    expect(port.calls.map((call) => call.name)).toEqual(["read_file", "terminal", "terminal"]);
    expect(port.calls[2]?.args).toEqual({ command: "ls" });
    expect(body.tool_calls_made).toBe(3);
    expect(details.calls.map((call) => call.status)).toEqual(["error", "ok", "error", "ok"]);
  });

  it("imports only the tools the session has, with Hermes' hint for the others", async () => {
    const { body } = await run("from hermes_tools import web_search\n", ctx({ ports: { innerTools: fakePort(["read_file"]) } }));
    expect(body).toMatchObject({ status: "error", exit_code: 1, error: "Script exited with code 1" });
    expect(body.output).toContain("--- stderr ---");
    expect(body.output).toContain("ImportError: cannot import name 'web_search' from 'hermes_tools'");
    expect(body.hint).toContain("'web_search' is not available inside execute_code. Importable here: read_file, json_parse");
  });

  it("stops at code_execution.max_tool_calls", async () => {
    const port = fakePort();
    const code = "from hermes_tools import read_file\nfor i in range(4):\n    print(read_file(f'{i}.txt').get('error', 'ok'))\n";
    const { body } = await run(code, ctx({ ports: { innerTools: port }, configure: (config) => (config.code_execution = { max_tool_calls: 2 }) }));
    expect(String(body.output).split("\n")).toEqual([
      "ok",
      "ok",
      "Tool call limit reached (2). No more tool calls allowed in this execution.",
      "Tool call limit reached (2). No more tool calls allowed in this execution.",
    ]);
    expect(port.calls).toHaveLength(2);
    expect(body.tool_calls_made).toBe(2);
  });

  it("confines the script itself: credentials unreadable, HERMES_HOME and the home read-only, the workspace writable", async () => {
    const code = [
      "import os",
      "for path in ['/etc/shadow']:",
      "    try:",
      "        open(path).read(); print('read', path)",
      "    except OSError as e: print('denied', path, type(e).__name__)",
      `for path in [${JSON.stringify(join(hermesHome, "evil.txt"))}, os.path.expanduser('~/evil.txt')]:`,
      "    try:",
      "        open(path, 'w').write('x'); print('wrote')",
      "    except OSError as e: print('denied write', type(e).__name__)",
      "open('made-by-script.txt', 'w').write('ok'); print('workspace ok')",
    ].join("\n");
    const { body } = await run(code, ctx({ ports: { innerTools: fakePort() } }));
    expect(String(body.output).split("\n")).toEqual(["denied /etc/shadow PermissionError", "denied write OSError", "denied write OSError", "workspace ok"]);
    expect(existsSync(join(hermesHome, "evil.txt"))).toBe(false);
    expect(existsSync(join(workspace, "made-by-script.txt"))).toBe(true);
  });

  it("holds a command the guard cannot see (base64, getattr) to the sandbox: HERMES_HOME is not touched", async () => {
    const outside = join(hermesHome, "skills");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "keep.txt"), "keep");
    const hidden = Buffer.from(`rm -rf ${outside} ${hermesHome}; echo done`).toString("base64");
    const code = ["import base64, os", `getattr(os, 'sys' 'tem'[::-1][::-1])(base64.b64decode('${hidden}').decode())`].join("\n");
    const asked: CommandApprovalRequest[] = [];
    const result = await executeCode({ code }, ctx({ ports: { innerTools: fakePort(), approveCommand: async (request) => (asked.push(request), false) } }));
    expect(JSON.parse(result.content)).toMatchObject({ status: "success" });
    expect(asked).toEqual([]);
    expect(existsSync(join(outside, "keep.txt"))).toBe(true);
    expect(existsSync(hermesHome)).toBe(true);
  });

  it("keeps the channel from programs the script starts, and leaves nothing in the agent's temp", async () => {
    const before = readdirSync(agentTempRoot()).filter((name) => name.startsWith("exec-")).length;
    const code = [
      "import subprocess, hermes_tools",
      "print(subprocess.run(['sh', '-c', 'test -e /proc/self/fd/3 && echo leaked || echo closed'], close_fds=False, capture_output=True, text=True).stdout.strip())",
      "import sys; print(sys.dont_write_bytecode)",
    ].join("\n");
    const { body } = await run(code, ctx({ ports: { innerTools: fakePort() } }));
    expect(String(body.output).split("\n")).toEqual(["closed", "True"]);
    expect(readdirSync(agentTempRoot()).filter((name) => name.startsWith("exec-")).length).toBe(before);
  });
});

describe.skipIf(!usable)("execute_code in an agent that inherited descriptors", () => {
  it("passes the script no descriptor but its stdio and the channel, even ones the agent's launcher leaked", async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const runner = [
      `import { executeCode } from ${JSON.stringify(join(here, "execute-code.ts"))};`,
      `import { toolContext } from ${JSON.stringify(join(here, "../../../test/support/tool-context.ts"))};`,
      "const code = 'import os\\nprint([fd for fd in range(1024) if os.path.exists(f\"/proc/self/fd/{fd}\")])';",
      `const result = await executeCode({ code }, toolContext({ cwd: ${JSON.stringify(workspace)} }), () => undefined);`,
      "process.stdout.write(result.content);",
    ].join("\n");
    // bash opens fd 100 without close-on-exec, as a shell or an editor may leave one to the agent
    const { stdout } = await execFileAsync("bash", ["-c", 'exec 100</dev/null; exec "$@"', "bash", process.execPath, "--import", "tsx", "--input-type=module", "-e", runner], {
      cwd: join(here, "../../.."),
    });
    expect(JSON.parse(stdout)).toMatchObject({ status: "success", output: "[0, 1, 2, 3, 4]" });
  });
});

describe("execute_code without a sandbox", () => {
  it("asks the user to approve the whole script, and a denial runs nothing", async () => {
    const asked: CommandApprovalRequest[] = [];
    const approveCommand = async (request: CommandApprovalRequest): Promise<boolean> => {
      asked.push(request);
      return false;
    };
    const code = "open('never.txt', 'w').write('x')\n";
    const { result, body } = await run(code, ctx({ sandboxOff: true, ports: { innerTools: fakePort(), approveCommand } }));
    expect(asked).toMatchObject([{ callId: "call_test", command: code, patternKey: "execute_code" }]);
    expect(result.isError).toBe(true);
    expect(body).toMatchObject({ status: "error", tool_calls_made: 0 });
    expect(String(body.error)).toContain("did not allow this script");
    expect(existsSync(join(workspace, "never.txt"))).toBe(false);
  });

  it("still asks for the whole script when a command it spells out is allowed already (allowlist or the session)", async () => {
    const asked: CommandApprovalRequest[] = [];
    const approveCommand = async (request: CommandApprovalRequest): Promise<boolean> => {
      asked.push(request);
      return request.patternKey === "rm_recursive";
    };
    mkdirSync(join(workspace, "build"), { recursive: true });
    // the decoy the user allowed, and what the script really does
    const code = ["import os", "os.system('rm -rf build')", "open('exfiltrated.txt', 'w').write('anything at all')"].join("\n");
    for (const context of [
      ctx({ sandboxOff: true, ports: { approveCommand }, configure: (config) => (config.command_allowlist = ["rm_recursive"]) }),
      ctx({ sandboxOff: true, ports: { approveCommand } }),
    ]) {
      asked.length = 0;
      const result = await executeCode({ code }, context);
      expect(asked.map((request) => request.patternKey)).toEqual(context.config.command_allowlist.length ? ["execute_code"] : ["rm_recursive", "execute_code"]);
      expect(asked.at(-1)?.command).toBe(code);
      expect(result.isError).toBe(true);
      expect(existsSync(join(workspace, "exfiltrated.txt"))).toBe(false);
      expect(existsSync(join(workspace, "build"))).toBe(true);
    }
  });

  it("runs an approved script and says so in the result", async () => {
    const { body, details } = await run("print('hello')\n", ctx({ sandboxOff: true, ports: { innerTools: fakePort(), approveCommand: async () => true } }));
    expect(body).toMatchObject({ status: "success", output: "hello" });
    expect(String(body.approval)).toContain("approved by the user");
    expect(details).toMatchObject({ sandbox: "off", approval: { patternKey: "execute_code", via: "user" } });
  });

  it("refuses empty code without running anything", async () => {
    const { result, body } = await run("  \n", ctx({ sandboxOff: true }));
    expect(result.isError).toBe(true);
    expect(String(body.error)).toContain("No code provided");
  });
});
