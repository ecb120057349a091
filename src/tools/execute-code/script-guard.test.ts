import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { CommandApprovalRequest } from "../ports.js";
import { guardScript } from "./guard-script.js";
import { hermesToolsModule, scriptTools } from "./hermes-tools-module.js";
import { scriptCommands } from "./script-commands.js";
import { callSummary, scriptSummary } from "./summary.js";

describe("scriptCommands", () => {
  it("finds string literals and argv lists, comments left out", () => {
    const code = [
      "import os, subprocess  # 'not this'",
      "os.system(\"git push --force origin main\")",
      "subprocess.run(['rm', '-rf', 'build'], check=True)",
      "subprocess.run(('ls', '-la',))",
      "name = r'C:\\temp' + f\"{x}.txt\"",
      "doc = '''multi",
      "line'''",
      "word = identifier'not a prefix'",
    ].join("\n");
    expect(scriptCommands(code)).toEqual([
      "git push --force origin main",
      "rm -rf build",
      "rm",
      "-rf",
      "build",
      "ls -la",
      "ls",
      "-la",
      "C:\\temp{x}.txt",
      "C:\\temp",
      "{x}.txt",
      "multi\nline",
      "not a prefix",
    ]);
  });
});

describe("guardScript", () => {
  it("refuses a hardline command a script spells out, and asks for a dangerous one, showing it", async () => {
    const hard = await guardScript("import subprocess\nsubprocess.run('rm -rf /', shell=True)\n", toolContext(), { sandboxed: true });
    expect(hard).toMatchObject({ action: "refuse", reason: "hardline" });

    const asked: CommandApprovalRequest[] = [];
    const ctx = toolContext({
      ports: {
        approveCommand: async (request) => {
          asked.push(request);
          return false;
        },
      },
    });
    const denied = await guardScript("import os\nos.system('git push --force origin main')\n", ctx, { sandboxed: true });
    expect(denied).toMatchObject({ action: "refuse", reason: "denied" });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.command).toBe("git push --force origin main");
  });

  it("sees literals Python joins (adjacent ones) and ones joined with +, as the script would run them", async () => {
    for (const spelling of ["'rm' ' -rf /'", "'rm -rf ' + '/'", "('rm -r'\n    'f /')"]) {
      const verdict = await guardScript(`import os\nos.system(${spelling})\n`, toolContext(), { sandboxed: true });
      expect(verdict, spelling).toMatchObject({ action: "refuse", reason: "hardline" });
    }
    const asked: CommandApprovalRequest[] = [];
    const ctx = toolContext({ ports: { approveCommand: async (request) => (asked.push(request), false) } });
    const denied = await guardScript("import os\nos.system('git push ' + '--force origin main')\n", ctx, { sandboxed: true });
    expect(denied).toMatchObject({ action: "refuse", reason: "denied" });
    expect(asked.map((request) => request.command)).toEqual(["git push --force origin main"]);
  });

  it("lets a harmless sandboxed script run without asking", async () => {
    const verdict = await guardScript("from hermes_tools import read_file\nprint(read_file('a.txt')['content'])\n", toolContext(), { sandboxed: true });
    expect(verdict).toEqual({ action: "run" });
  });
});

describe("the hermes_tools module and summaries", () => {
  it("offers Hermes' script tools the session has, in Hermes' order, and always the helpers", () => {
    expect(scriptTools(["todo", "terminal", "read_file", "memory", "delegate_task", "execute_code"])).toEqual(["read_file", "terminal"]);
    const source = hermesToolsModule(["read_file"]);
    expect(source).toContain("def read_file(path, offset=None, limit=None):");
    expect(source).not.toContain("def terminal(");
    expect(source).toContain('__all__ = ["read_file", "json_parse", "shell_quote", "retry"]');
  });

  it("titles a script by its leading comment or first statement, and an inner call by its main argument", () => {
    expect(scriptSummary("#!/usr/bin/env python3\n# Survey the modules\nimport os\n")).toBe("Survey the modules");
    expect(scriptSummary("import os\nfrom hermes_tools import read_file\n\nfor f in os.listdir('.'):\n  pass\n")).toBe("for f in os.listdir('.'):");
    expect(scriptSummary("\n  \n")).toBe("(empty)");
    expect(scriptSummary(`print('${"x".repeat(200)}')`)).toHaveLength(100);
    expect(callSummary("read_file", { path: "src/a.ts", offset: 3 })).toBe("read_file src/a.ts");
    expect(callSummary("terminal", { command: "npm   test\n--silent" })).toBe("terminal npm test --silent");
    expect(callSummary("web_extract", { urls: ["https://a.example", "https://b.example"] })).toBe("web_extract https://a.example (+1 more)");
    expect(callSummary("patch", { mode: "patch", patch: "*** Begin Patch" })).toBe("patch");
  });
});
