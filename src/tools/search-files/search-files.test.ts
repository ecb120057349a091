import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../config/schema.js";
import { describeCall, parseToolArgs } from "../registry.js";
import { hermesAcpTools } from "../toolsets.js";
import type { ToolResult } from "../types.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { findRipgrep } from "./rg-engine.js";
import { MAX_COLLECTED } from "./search-types.js";
import {
  createSearchFilesTool,
  runSearch,
  searchFilesTool,
  type SearchEngineOptions,
  type SearchFilesDetails,
} from "./search-files.js";

const RG = await findRipgrep();
const RG_NOTE = RG ? `ripgrep at ${RG}` : "SKIPPED: rg is not on PATH (apt-get install ripgrep to run these)";

const ENGINES: Array<{ name: string; options: SearchEngineOptions; skip: boolean }> = [
  { name: "node fallback", options: { useRipgrep: false }, skip: false },
  { name: `ripgrep (${RG_NOTE})`, options: { ripgrepPath: RG ?? "rg" }, skip: !RG },
];

let dir: string;
let cwdOutside: string;

function write(rel: string, content: string | Uint8Array, base = dir): void {
  const file = path.join(base, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "search-files-"));
  cwdOutside = mkdtempSync(path.join(os.tmpdir(), "search-files-cwd-"));
  write(".gitignore", "build/\n*.log\n/only-root.txt\n");
  write(".git/HEAD", "hello from git\n");
  write(".hidden/secret.ts", "hello hidden\n");
  write("node_modules/pkg/index.js", "hello module\n");
  write("build/out.js", "hello build\n");
  write("build/out.log", "hello build log\n");
  write("app.log", "hello log\n");
  write("only-root.txt", "hello root only\n");
  write("README.md", "# Title\nhello readme\n");
  write("src/a.ts", "import x from 'y';\nconst hello = 1;\n// say hello again\nexport {};\n");
  write("src/b.ts", "line1\nline2\nline3\nhello b\nline5\nline6\nline7\nline8\nhello b2\nline10\n");
  write("src/nested/c.tsx", "export const Hello = () => 'hello';\n");
  write("src/nested/deep/d.ts", "nothing here\n");
  write("src/.dotfile.ts", "hello dotfile\n");
  write("sub/.gitignore", "keep.txt\n!important.log\n");
  write("sub/important.log", "hello important\n");
  write("sub/keep.txt", "hello keep\n");
  write("sub/only-root.txt", "hello nested only-root\n");
  write("bin.dat", Buffer.from("\0\0hello binary\n"));
  write("crlf.txt", "hello crlf\r\nsecond\r\n");
  write("bom.txt", "\uFEFFhello bom\n");
  write("dash-12-name.txt", "hello dashes\n");
  symlinkSync(path.join(dir, "src/a.ts"), path.join(dir, "link.ts"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(cwdOutside, { recursive: true, force: true });
});

const VISIBLE_HELLO_FILES = [
  "README.md",
  "bom.txt",
  "crlf.txt",
  "dash-12-name.txt",
  "src/a.ts",
  "src/b.ts",
  "src/nested/c.tsx",
  "sub/important.log",
  "sub/only-root.txt",
];

describe.each(ENGINES)("search_files with $name", ({ options, skip }) => {
  const tool = createSearchFilesTool(options);

  async function search(args: Record<string, unknown>, cwd = dir, signal?: AbortSignal): Promise<ToolResult> {
    const parsed = parseToolArgs(tool, JSON.stringify(args));
    if (!parsed.ok) throw new Error(parsed.error);
    return tool.execute(parsed.args, toolContext({ cwd, ...(signal ? { signal } : {}) }));
  }

  function details(result: ToolResult): SearchFilesDetails {
    expect(result.isError, result.content).toBeFalsy();
    return result.details as SearchFilesDetails;
  }

  it.skipIf(skip)("prints path:line:text sorted by path then line, relative to the search root", async () => {
    const result = await search({ pattern: "hello", path: "src" });
    expect(result.content).toBe(
      ["a.ts:2:const hello = 1;", "a.ts:3:// say hello again", "b.ts:4:hello b", "b.ts:9:hello b2", "nested/c.tsx:1:export const Hello = () => 'hello';"].join("\n"),
    );
    const d = details(result);
    expect(d).toMatchObject({ mode: "content", target: "content", pattern: "hello", path: path.join(dir, "src"), total: 5, truncated: false });
    expect(d.nextOffset).toBeUndefined();
    expect(d.matches?.[0]).toEqual({ path: "a.ts", line: 2, text: "const hello = 1;" });
  });

  it.skipIf(skip)("skips .git, node_modules, hidden files, symlinks, binary files and what .gitignore files ignore", async () => {
    const d = details(await search({ pattern: "hello", output_mode: "files_only" }));
    expect(d.files).toEqual(VISIBLE_HELLO_FILES);
    expect(d.total).toBe(VISIBLE_HELLO_FILES.length);
  });

  it.skipIf(skip)("honours the parent .gitignore when searching a subdirectory, and searches inside an ignored root", async () => {
    expect(details(await search({ pattern: "hello", path: "sub", output_mode: "files_only" })).files).toEqual([
      "important.log",
      "only-root.txt",
    ]);
    // build/ is ignored, but a search rooted there still runs; *.log still applies inside it.
    expect(details(await search({ pattern: "hello", path: "build", output_mode: "files_only" })).files).toEqual(["out.js"]);
  });

  it.skipIf(skip)("searches a hidden directory or a single file when path points at it", async () => {
    expect(details(await search({ pattern: "hello", path: ".hidden", output_mode: "files_only" })).files).toEqual(["secret.ts"]);
    const one = await search({ pattern: "hello", path: "src/b.ts" });
    expect(one.content).toBe("b.ts:4:hello b\nb.ts:9:hello b2");
    expect(details(one).path).toBe(path.join(dir, "src/b.ts"));
  });

  it.skipIf(skip)("filters content search with file_glob like rg --glob", async () => {
    const files = async (glob: string): Promise<string[] | undefined> =>
      details(await search({ pattern: "hello", file_glob: glob, output_mode: "files_only" })).files;
    expect(await files("*.ts")).toEqual(["src/a.ts", "src/b.ts"]);
    expect(await files("*.{ts,tsx}")).toEqual(["src/a.ts", "src/b.ts", "src/nested/c.tsx"]);
    expect(await files("src/nested/**")).toEqual(["src/nested/c.tsx"]);
    expect(await files("!*.ts")).toEqual(VISIBLE_HELLO_FILES.filter((file) => !file.endsWith(".ts")));
    // A glob never brings back what .gitignore or the hidden-file rule leaves out.
    expect(await files("*.log")).toEqual(["sub/important.log"]);
    expect(await files("**/*.ts")).toEqual(["src/a.ts", "src/b.ts"]);
  });

  it.skipIf(skip)("counts matching lines per file", async () => {
    const result = await search({ pattern: "hello", path: "src", output_mode: "count" });
    expect(result.content).toBe("a.ts:2\nb.ts:2\nnested/c.tsx:1");
    expect(details(result).counts).toEqual([
      { path: "a.ts", count: 2 },
      { path: "b.ts", count: 2 },
      { path: "nested/c.tsx", count: 1 },
    ]);
  });

  it.skipIf(skip)("shows context lines as path-line-text with -- between groups", async () => {
    const result = await search({ pattern: "^hello b", path: "src/b.ts", context: 1 });
    expect(result.content).toBe(["b.ts-3-line3", "b.ts:4:hello b", "b.ts-5-line5", "--", "b.ts-8-line8", "b.ts:9:hello b2", "b.ts-10-line10"].join("\n"));
    expect(details(result).matches).toHaveLength(2);
  });

  it.skipIf(skip)("merges overlapping context windows", async () => {
    const result = await search({ pattern: "hello b", path: "src/b.ts", context: 3 });
    expect(result.content.split("\n")).toEqual([
      "b.ts-1-line1",
      "b.ts-2-line2",
      "b.ts-3-line3",
      "b.ts:4:hello b",
      "b.ts-5-line5",
      "b.ts-6-line6",
      "b.ts-7-line7",
      "b.ts-8-line8",
      "b.ts:9:hello b2",
      "b.ts-10-line10",
    ]);
  });

  it.skipIf(skip)("pages with limit and offset and says where to continue", async () => {
    const first = await search({ pattern: "hello", limit: 3 });
    expect(first.content.split("\n").slice(0, 3)).toEqual(["README.md:2:hello readme", "bom.txt:1:hello bom", "crlf.txt:1:hello crlf"]);
    expect(first.content).toContain("[Showing results 1-3 of 11. Use offset=3 to see more.]");
    expect(details(first)).toMatchObject({ total: 11, truncated: true, nextOffset: 3 });

    const last = await search({ pattern: "hello", limit: 3, offset: 10 });
    expect(last.content).toBe("sub/only-root.txt:1:hello nested only-root\n\n[Showing results 11-11 of 11.]");
    expect(details(last)).toMatchObject({ total: 11, truncated: false });

    const beyond = await search({ pattern: "hello", offset: 50 });
    expect(beyond.isError).toBeFalsy();
    expect(beyond.content).toContain("No results at offset 50");
  });

  it.skipIf(skip)("finds files by glob, and by a plain name as a substring", async () => {
    const ts = await search({ pattern: "*.ts", target: "files" });
    expect(ts.content).toBe("src/a.ts\nsrc/b.ts\nsrc/nested/deep/d.ts");
    expect(details(ts)).toMatchObject({ mode: "files_only", target: "files", total: 3, files: ["src/a.ts", "src/b.ts", "src/nested/deep/d.ts"] });
    expect(details(await search({ pattern: "ONLY-root", target: "files" })).files).toEqual(["sub/only-root.txt"]);
    expect(details(await search({ pattern: "src/*.ts", target: "files" })).files).toEqual(["src/a.ts", "src/b.ts"]);
    const page = await search({ pattern: "*", target: "files", path: "src", limit: 2 });
    expect(page.content).toBe("a.ts\nb.ts\n\n[Showing results 1-2 of 4. Use offset=2 to see more.]");
  });

  it.skipIf(skip)("drops the CR of CRLF lines and a UTF-8 BOM, and matches $ before CR only like rg", async () => {
    expect((await search({ pattern: "crlf$", path: "crlf.txt" })).content).toContain("No matches");
    expect((await search({ pattern: "crlf\\r$", path: "crlf.txt" })).content).toBe("crlf.txt:1:hello crlf");
    expect((await search({ pattern: "^hello bom", path: "bom.txt" })).content).toBe("bom.txt:1:hello bom");
  });

  it.skipIf(skip)("handles dashes and digits in file names", async () => {
    expect((await search({ pattern: "dashes", context: 1 })).content).toBe("dash-12-name.txt:1:hello dashes");
  });

  it.skipIf(skip)("returns an isError result naming an invalid regex", async () => {
    const result = await search({ pattern: "foo(" });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Invalid regex pattern 'foo\(': .*(group|\))/i);
  });

  it.skipIf(skip)("refuses a regex that needs a line break, explaining why", async () => {
    const result = await search({ pattern: "hello\\nworld" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("line-oriented");
  });

  it.skipIf(skip)("reports a missing path as an error the model can fix", async () => {
    const result = await search({ pattern: "x", path: "no/such/dir" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("Path not found: no/such/dir");
  });

  it.skipIf(skip)("says so when nothing matches", async () => {
    const result = await search({ pattern: "zzz_not_there" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toContain("No matches for 'zzz_not_there'");
    expect(details(result)).toMatchObject({ total: 0, truncated: false });
  });

  it.skipIf(skip)("resolves path against the session cwd, and accepts absolute paths", async () => {
    const abs = await search({ pattern: "hello", path: path.join(dir, "src"), output_mode: "files_only" }, cwdOutside);
    expect(details(abs).files).toEqual(["a.ts", "b.ts", "nested/c.tsx"]);
  });

  it.skipIf(skip)("stops promptly with an AbortError when the turn is cancelled", async () => {
    const controller = new AbortController();
    const pending = search({ pattern: "hello" }, dir, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    const already = new AbortController();
    already.abort();
    await expect(search({ pattern: "hello" }, dir, already.signal)).rejects.toThrow(/abort/i);
  });
});

describe.skipIf(!RG)(`both engines give the same output (${RG_NOTE})`, () => {
  const requests: Array<Record<string, unknown>> = [
    { pattern: "hello" },
    { pattern: "hello", output_mode: "files_only" },
    { pattern: "hello", output_mode: "count" },
    { pattern: "h.llo", context: 2, limit: 4, offset: 1 },
    { pattern: "(?i)HELLO", file_glob: "*.ts" },
    { pattern: "hello", file_glob: "!*.{log,txt}" },
    { pattern: "hello", file_glob: "*.log", output_mode: "files_only" },
    { pattern: "hello", file_glob: "src/**/*.tsx", output_mode: "count" },
    { pattern: "hello", file_glob: "!src/**" },
    { pattern: "hello", path: "src/a.ts", file_glob: "*.md" },
    { pattern: "hello", path: "sub" },
    { pattern: "hello", path: "build" },
    { pattern: "*.ts", target: "files" },
    { pattern: "**/*.log", target: "files" },
    { pattern: "readme", target: "files" },
    { pattern: "line\\d+$", path: "src", context: 1 },
    { pattern: "[unclosed" },
  ];
  const nodeTool = createSearchFilesTool({ useRipgrep: false });
  const rgTool = createSearchFilesTool({ ripgrepPath: RG ?? "rg" });

  it.each(requests)("%j", async (args) => {
    const run = async (tool: typeof nodeTool): Promise<ToolResult> => {
      const parsed = parseToolArgs(tool, JSON.stringify(args));
      if (!parsed.ok) throw new Error(parsed.error);
      return tool.execute(parsed.args, toolContext({ cwd: dir }));
    };
    const [fromNode, fromRg] = await Promise.all([run(nodeTool), run(rgTool)]);
    if (fromNode.isError) {
      // Both refuse; the wording comes from each regex engine.
      expect(fromRg.isError).toBe(true);
      expect(fromRg.content).toMatch(/^Invalid regex pattern/);
      expect(fromNode.content).toMatch(/^Invalid regex pattern/);
      return;
    }
    expect(fromRg).toEqual(fromNode);
  });
});

describe("search_files tool", () => {
  it("is a read-only search tool in the hermes-acp toolset", () => {
    const registered = hermesAcpTools().find((tool) => tool.name === "search_files");
    expect(registered).toBe(searchFilesTool);
    expect(searchFilesTool).toMatchObject({ kind: "search", mutating: false });
  });

  it("describes a call as search: <pattern>, with the path as its location when given", () => {
    expect(describeCall(searchFilesTool, "search_files", { pattern: "TODO" }, { cwd: "/work" })).toEqual({
      title: "search: TODO",
      locations: [],
    });
    expect(describeCall(searchFilesTool, "search_files", { pattern: "x", path: "src" }, { cwd: "/work" })).toEqual({
      title: "search: x",
      locations: [{ path: "/work/src" }],
    });
  });

  it("rejects bad arguments with a message naming the field", () => {
    const parsed = parseToolArgs(searchFilesTool, JSON.stringify({ pattern: "x", output_mode: "lines" }));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain("output_mode");
  });

  it("takes the default limit from config (search_files.limit)", async () => {
    const config = defaultConfig();
    config.search_files.limit = 2;
    const tool = createSearchFilesTool({ useRipgrep: false });
    const result = await tool.execute({ pattern: "hello" }, toolContext({ cwd: dir, config }));
    expect(result.content).toContain("[Showing results 1-2 of 11. Use offset=2 to see more.]");
  });

  it("runSearch reports which engine ran", async () => {
    const request = { root: dir, rootIsFile: false, target: "content" as const, pattern: "x", outputMode: "content" as const, context: 0 };
    expect((await runSearch(request, { useRipgrep: false })).engine).toBe("node");
    if (RG) expect((await runSearch(request, { ripgrepPath: RG })).engine).toBe("ripgrep");
  });
});

describe("search_files limits and cancellation", () => {
  it.each(ENGINES)("stops collecting at MAX_COLLECTED results and says so ($name)", async ({ options, skip }) => {
    if (skip) return;
    const big = mkdtempSync(path.join(os.tmpdir(), "search-files-big-"));
    try {
      write("many.txt", "x\n".repeat(MAX_COLLECTED + 5), big);
      const tool = createSearchFilesTool(options);
      const result = await tool.execute({ pattern: "x", limit: 1 }, toolContext({ cwd: big }));
      const d = result.details as SearchFilesDetails;
      expect(d).toMatchObject({ total: MAX_COLLECTED, capped: true, truncated: true, nextOffset: 1 });
      expect(result.content).toContain(`[Showing results 1-1 of ${MAX_COLLECTED}+. Use offset=1 to see more.]`);
      expect(result.content).toContain(`[Search stopped after ${MAX_COLLECTED} results`);
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });

  it("kills the ripgrep process when the signal fires", async () => {
    // A stand-in for rg that records its pid and then blocks: the search can only end by the kill.
    const bin = mkdtempSync(path.join(os.tmpdir(), "search-files-fake-rg-"));
    try {
      const pidFile = path.join(bin, "pid");
      const fake = path.join(bin, "rg");
      const script = `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1e6);`;
      writeFileSync(fake, `#!${process.execPath}\n${script}\n`, { mode: 0o755 });
      const controller = new AbortController();
      const request = { root: dir, rootIsFile: false, target: "content" as const, pattern: "x", outputMode: "content" as const, context: 0 };
      const pending = runSearch(request, { ripgrepPath: fake }, controller.signal);
      while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") await new Promise((r) => setTimeout(r, 10));
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      controller.abort();
      await expect(pending).rejects.toThrow(/abort/i);
      while (isAlive(pid)) await new Promise((r) => setTimeout(r, 10));
      expect(isAlive(pid)).toBe(false);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
