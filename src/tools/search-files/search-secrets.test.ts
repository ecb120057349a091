import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { ToolResult } from "../types.js";
import { findRipgrep } from "./rg-engine.js";
import { createSearchFilesTool, type SearchEngineOptions } from "./search-files.js";
import type { FileLineHits } from "./search-types.js";
import { SECRET_FILES_NOTE, secretSearchGuard } from "./secret-filter.js";

const RG = await findRipgrep();
const ENGINES: Array<{ name: string; options: SearchEngineOptions; skip: boolean }> = [
  { name: "node fallback", options: { useRipgrep: false }, skip: false },
  { name: RG ? `ripgrep at ${RG}` : "ripgrep (SKIPPED: rg is not on PATH)", options: { ripgrepPath: RG ?? "rg" }, skip: !RG },
];

const KEY = "sk-or-v1-0123456789abcdef0123456789abcdef";

let dir: string;
/** A HERMES_HOME without a leading dot, so only the secret-file rule keeps its files out. */
let home: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "search-secrets-"));
  home = path.join(dir, "hermes");
  mkdirSync(path.join(home, "profiles", "work"), { recursive: true });
  mkdirSync(path.join(dir, "project"));
  writeFileSync(path.join(home, ".env"), `OPENROUTER_API_KEY=${KEY}\n`);
  writeFileSync(path.join(home, "auth.json"), `{"OPENROUTER_API_KEY": "${KEY}"}\n`);
  writeFileSync(path.join(home, "profiles", "work", "auth.json"), `{"OPENROUTER_API_KEY": "${KEY}"}\n`);
  writeFileSync(path.join(home, "config.yaml"), "# OPENROUTER_API_KEY comes from .env\n");
  writeFileSync(path.join(dir, "project", "app.ts"), "const key = process.env.OPENROUTER_API_KEY;\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.each(ENGINES)("search_files and credential files ($name)", ({ options, skip }) => {
  const tool = createSearchFilesTool(options);
  const search = async (args: Record<string, unknown>, cwd = dir): Promise<ToolResult> =>
    tool.execute(tool.params.parse(args), toolContext({ cwd, hermesHome: home }));

  it.skipIf(skip)("leaves credential files out of a search whose root contains HERMES_HOME", async () => {
    for (const output_mode of ["content", "files_only", "count"]) {
      const result = await search({ pattern: "OPENROUTER_API_KEY", output_mode });
      expect(result.isError, output_mode).toBeFalsy();
      expect(result.content).not.toContain(KEY);
      expect(result.content.replace(SECRET_FILES_NOTE, "")).not.toContain("auth.json");
      expect(result.content).toContain("config.yaml");
      expect(result.content).toContain("app.ts");
      expect(result.content).toContain(SECRET_FILES_NOTE);
      expect(JSON.stringify(result.details)).not.toContain("auth.json");
    }
  });

  it.skipIf(skip)("gives the same note whether or not a credential file matched", async () => {
    const hit = await search({ pattern: 'KEY": "sk-or', path: "hermes", output_mode: "files_only" });
    const miss = await search({ pattern: 'KEY": "zz', path: "hermes", output_mode: "files_only" });
    expect(hit.content.replace("sk-or", "zz")).toBe(miss.content);
    expect(hit.content).toContain(SECRET_FILES_NOTE);
  });

  it.skipIf(skip)("refuses a credential file as the root, also through a symbolic link", async () => {
    symlinkSync(path.join(home, "auth.json"), path.join(dir, "project", "data.json"));
    for (const given of ["hermes/.env", "hermes/auth.json", "project/data.json", path.join(home, "profiles", "work", "auth.json")]) {
      const result = await search({ pattern: "KEY", path: given });
      expect(result.isError, given).toBe(true);
      expect(result.content).toMatch(/^Refused to search .*credentials/);
      expect(result.content).not.toContain(KEY);
    }
  });

  it.skipIf(skip)("leaves them out when the root is a symbolic link to HERMES_HOME", async () => {
    symlinkSync(home, path.join(dir, "project", "h"));
    const result = await search({ pattern: "OPENROUTER", path: "project/h" });
    expect(result.content).not.toContain(KEY);
    expect(result.content).toContain("config.yaml");
  });

  it.skipIf(skip)("still lists credential files by name (a file search reads no content)", async () => {
    const result = await search({ pattern: "*.json", target: "files", path: "hermes" });
    expect(result.content).toContain("auth.json");
    expect(result.content).not.toContain(KEY);
  });

  it.skipIf(skip)("has no note where no credential file can be", async () => {
    const result = await search({ pattern: "OPENROUTER", path: "project" });
    expect(result.content).not.toContain(SECRET_FILES_NOTE);
  });

  it.skipIf(skip || process.platform !== "linux")("never searches a process environment", async () => {
    for (const [given, cwd] of [
      ["/proc/self/environ", dir],
      ["environ", "/proc/self"],
      ["/proc/thread-self/environ", dir],
    ] as const) {
      const result = await search({ pattern: "PATH", path: given }, cwd);
      expect(result.isError, given).toBe(true);
      expect(result.content).toMatch(/process environment/);
    }
  });
});

describe("secretSearchGuard", () => {
  const hits = (): FileLineHits => ({ matches: [{ line: 1, text: "x" }], context: new Map() });

  it.skipIf(process.platform !== "linux")("drops environ files from every content result kind", async () => {
    const guard = await secretSearchGuard(`/proc/${process.pid}`, false, home);
    const rels = ["environ", "task/123/environ", "status"];
    const lines = guard.filter({ kind: "lines", files: new Map(rels.map((rel) => [rel, hits()])), capped: false }, "content");
    expect(lines.kind === "lines" && [...lines.files.keys()]).toEqual(["status"]);
    const counts = guard.filter({ kind: "counts", counts: new Map(rels.map((rel) => [rel, 1])), capped: false }, "content");
    expect(counts.kind === "counts" && [...counts.counts.keys()]).toEqual(["status"]);
    const files = guard.filter({ kind: "files", files: rels, capped: false }, "content");
    expect(files.kind === "files" && files.files).toEqual(["status"]);
    expect(guard.filter({ kind: "files", files: rels, capped: false }, "files")).toEqual({ kind: "files", files: rels, capped: false });
    expect(guard.note).toBe(true);
  });

  it("drops HERMES_HOME's credential files, also in profiles, below a wider root", async () => {
    const guard = await secretSearchGuard(dir, false, home);
    const rels = ["hermes/.env", "hermes/auth.json", "hermes/profiles/work/auth.json", "hermes/config.yaml", "project/auth.json"];
    const result = guard.filter({ kind: "files", files: rels, capped: false }, "content");
    expect(result.kind === "files" && result.files).toEqual(["hermes/config.yaml", "project/auth.json"]);
  });
});
