import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { ToolPorts } from "../ports.js";
import type { ToolResult } from "../types.js";
import { readFileTool } from "./read-file.js";

const KEY = "sk-or-v1-0123456789abcdef0123456789abcdef";

let dir: string;
let home: string;
let project: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "read-file-secrets-"));
  home = path.join(dir, "hermes");
  project = path.join(dir, "project");
  mkdirSync(home);
  mkdirSync(project);
  writeFileSync(path.join(home, ".env"), `OPENROUTER_API_KEY=${KEY}\n`);
  writeFileSync(path.join(home, "auth.json"), `{"token":"${KEY}"}\n`);
  writeFileSync(path.join(home, "config.yaml"), "model:\n  provider: auto\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function read(filePath: string, options: { cwd?: string; ports?: ToolPorts } = {}): Promise<ToolResult> {
  const args = readFileTool.params.parse({ path: filePath });
  return readFileTool.execute(args, toolContext({ cwd: options.cwd ?? project, hermesHome: home, ports: options.ports ?? {} }));
}

function expectRefused(result: ToolResult, why: RegExp): void {
  expect(result.isError).toBe(true);
  const { error } = JSON.parse(result.content) as { error: string };
  expect(error).toMatch(/^Refused to read /);
  expect(error).toMatch(why);
  expect(result.content).not.toContain(KEY);
  expect(JSON.stringify(result.details)).not.toContain(KEY);
}

describe("read_file and credential files", () => {
  it("refuses HERMES_HOME/.env and auth.json, by absolute or relative path", async () => {
    expectRefused(await read(path.join(home, ".env")), /holds Hermes credentials/);
    expectRefused(await read("../hermes/.env"), /holds Hermes credentials/);
    expectRefused(await read(".env", { cwd: home }), /holds Hermes credentials/);
    expectRefused(await read(path.join(home, "auth.json")), /holds Hermes credentials/);
  });

  it("refuses a symbolic link to them", async () => {
    symlinkSync(path.join(home, ".env"), path.join(project, "notes.txt"));
    symlinkSync(home, path.join(project, "h"));
    expectRefused(await read("notes.txt"), /credentials/);
    expectRefused(await read("h/.env"), /credentials/);
  });

  it("never asks the editor for them", async () => {
    let asked = false;
    const ports: ToolPorts = {
      readTextFile: async () => {
        asked = true;
        return `OPENROUTER_API_KEY=${KEY}\n`;
      },
    };
    expectRefused(await read(path.join(home, ".env"), { ports }), /credentials/);
    expect(asked).toBe(false);
  });

  it("still reads the other files of HERMES_HOME and a project's own .env", async () => {
    writeFileSync(path.join(project, ".env"), "PORT=3000\n");
    expect((await read(path.join(home, "config.yaml"))).isError).toBeFalsy();
    const own = await read(".env");
    expect(own.isError).toBeFalsy();
    expect(own.content).toContain("PORT=3000");
  });

  it.skipIf(process.platform !== "linux")("refuses process environments however they are named", async () => {
    const tid = readdirSync("/proc/self/task")[0] as string;
    symlinkSync("/proc/self/environ", path.join(project, "env"));
    for (const [given, cwd] of [
      ["/proc/self/environ", project],
      ["/proc/thread-self/environ", project],
      [`/proc/${process.pid}/environ`, project],
      [`/proc/${process.pid}/task/${tid}/environ`, project],
      ["env", project],
      ["environ", "/proc/self"],
      ["../self/environ", "/proc/self"],
    ] as const) {
      const result = await read(given, { cwd });
      expectRefused(result, /process environment/);
    }
  });
});
