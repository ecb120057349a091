import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { patchTool } from "./patch.js";

/**
 * Codex-style scenario tests: each folder under fixtures/ holds `patch.txt`, an optional `input/`
 * tree, and either `expected/` (the tree after the patch) or `expected-error.txt` (text the error
 * must contain; the tree must then be left exactly as `input/`). Each runs the real patch tool on a
 * temp copy of `input/`, with every edit approved.
 */
const FIXTURES = path.join(import.meta.dirname, "fixtures");
const work = mkdtempSync(path.join(os.tmpdir(), "patch-fixtures-"));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file under `dir` (relative path → bytes); an absent dir is empty. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  if (!existsSync(dir)) return files;
  const walk = (sub: string): void => {
    for (const name of readdirSync(path.join(dir, sub))) {
      const rel = path.join(sub, name);
      if (statSync(path.join(dir, rel)).isDirectory()) walk(rel);
      else files[rel] = readFileSync(path.join(dir, rel)).toString("latin1");
    }
  };
  walk("");
  return files;
}

const cases = readdirSync(FIXTURES).filter((name) => statSync(path.join(FIXTURES, name)).isDirectory()).sort();

describe("patch fixtures", () => {
  it("has the scenarios", () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)("%s", async (name) => {
    const scenario = path.join(FIXTURES, name);
    const cwd = path.join(work, name);
    const input = path.join(scenario, "input");
    if (existsSync(input)) cpSync(input, cwd, { recursive: true });
    else cpSync(scenario, cwd, { recursive: true, filter: () => false });
    const patch = readFileSync(path.join(scenario, "patch.txt"), "utf8");
    const approvals: string[][] = [];
    const ctx = toolContext({
      cwd,
      ports: {
        approveEdit: async (request) => {
          approvals.push(request.edits.map((edit) => edit.path));
          return true;
        },
      },
    });

    const result = await patchTool.execute({ mode: "patch", patch }, ctx);

    const errorFile = path.join(scenario, "expected-error.txt");
    if (existsSync(errorFile)) {
      expect(result.isError, result.content).toBe(true);
      expect((JSON.parse(result.content) as { error: string }).error).toContain(readFileSync(errorFile, "utf8").trim());
      expect(snapshot(cwd)).toEqual(snapshot(input));
      expect(approvals).toEqual([]);
    } else {
      expect(result.isError, result.content).toBeFalsy();
      expect(snapshot(cwd)).toEqual(snapshot(path.join(scenario, "expected")));
    }
  });
});
