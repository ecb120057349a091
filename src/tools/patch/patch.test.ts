import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { EditApprovalRequest, ToolPorts } from "../ports.js";
import { readFileTool } from "../read-file/read-file.js";
import { describeCall, parseToolArgs } from "../registry.js";
import { hermesAcpTools } from "../toolsets.js";
import type { ToolContext, ToolResult } from "../types.js";
import { patchTool, type PatchDetails } from "./patch.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "patch-tool-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setup(allow = true, extra: ToolPorts = {}): { ctx: ToolContext; requests: EditApprovalRequest[] } {
  const requests: EditApprovalRequest[] = [];
  const ports: ToolPorts = {
    approveEdit: async (request) => {
      requests.push(request);
      return allow;
    },
    ...extra,
  };
  return { ctx: toolContext({ cwd: dir, callId: "call_p", ports }), requests };
}

function run(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult> {
  return patchTool.execute(patchTool.params.parse(args), ctx);
}

function output(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.content).toBeFalsy();
  return JSON.parse(result.content) as Record<string, unknown>;
}

function errorOf(result: ToolResult): string {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content) as { error: string }).error;
}

function put(name: string, content: string): string {
  const full = path.join(dir, name);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

const disk = (name: string): string => readFileSync(path.join(dir, name), "utf8");

describe("patch, replace mode", () => {
  it("replaces, asks once with the whole file, and returns a diff", async () => {
    const target = put("r/app.js", "const a = 1;\nconst b = 2;\n");
    const { ctx, requests } = setup();
    const result = await run(ctx, { path: "r/app.js", old_string: "const b = 2;", new_string: "const b = 3;" });
    const diff = "--- a/r/app.js\n+++ b/r/app.js\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n";
    expect(output(result)).toEqual({ success: true, path: target, replacements: 1, lines: [2], strategy: "exact", diff });
    expect(disk("r/app.js")).toBe("const a = 1;\nconst b = 3;\n");
    const edit = { path: target, oldText: "const a = 1;\nconst b = 2;\n", newText: "const a = 1;\nconst b = 3;\n" };
    expect(requests).toEqual([{ callId: "call_p", toolName: "patch", edits: [edit] }]);
    expect(result.details).toEqual({ mode: "replace", files: [edit], diff } satisfies PatchDetails);
  });

  it("keeps CRLF and BOM while matching LF old_string", async () => {
    put("r/win.txt", "\uFEFFone\r\ntwo\r\nthree\r\n");
    const { ctx } = setup();
    output(await run(ctx, { path: "r/win.txt", old_string: "one\ntwo", new_string: "one\n2\n2.5" }));
    expect(disk("r/win.txt")).toBe("\uFEFFone\r\n2\r\n2.5\r\nthree\r\n");
  });

  it("is a successful no-op when the edit is already present, without asking", async () => {
    put("r/done.txt", "retries = 5 # tuned\n");
    const { ctx, requests } = setup();
    const out = output(await run(ctx, { path: "r/done.txt", old_string: "retries = 3", new_string: "retries = 5 # tuned" }));
    expect(out).toMatchObject({ success: true, replacements: 0, message: expect.stringMatching(/already present/) });
    expect(requests).toEqual([]);
  });

  it("reports ambiguity and missing matches as errors the model can act on", async () => {
    put("r/dup.txt", "x = 1\ny = 2\nx = 1\n");
    const { ctx } = setup();
    expect(errorOf(await run(ctx, { path: "r/dup.txt", old_string: "x = 1", new_string: "x = 9" }))).toMatch(/Found 2 matches[\s\S]*L1: x = 1\n {2}L3: x = 1/);
    expect(errorOf(await run(ctx, { path: "r/dup.txt", old_string: "zzz = qqq", new_string: "a" }))).toMatch(/Could not find a match/);
    output(await run(ctx, { path: "r/dup.txt", old_string: "x = 1", new_string: "x = 9", replace_all: true }));
    expect(disk("r/dup.txt")).toBe("x = 9\ny = 2\nx = 9\n");
  });

  it("names missing arguments and missing files", async () => {
    const { ctx } = setup();
    expect(errorOf(await run(ctx, { path: "r/x.txt", old_string: "a" }))).toMatch(/missing: new_string/);
    put("r/config.yaml", "a: 1\n");
    const error = errorOf(await run(ctx, { path: "r/confg.yaml", old_string: "a", new_string: "b" }));
    expect(error).toMatch(/File not found: .*confg\.yaml\. Similar files: .*config\.yaml/);
  });

  it("leaves the file unchanged when the user declines", async () => {
    put("r/keep.txt", "keep me\n");
    const { ctx } = setup(false);
    expect(errorOf(await run(ctx, { path: "r/keep.txt", old_string: "keep", new_string: "lose" }))).toMatch(/declined/);
    expect(disk("r/keep.txt")).toBe("keep me\n");
  });

  it("warns when the file changed since it was read", async () => {
    const target = put("r/stale.txt", "alpha\nbeta\n");
    const { ctx } = setup();
    await readFileTool.execute({ path: target }, ctx);
    put("r/stale.txt", "alpha\nbeta\ngamma\n");
    const out = output(await run(ctx, { path: target, old_string: "beta", new_string: "BETA" }));
    expect(out.warning).toMatch(/modified since you last read it/);
    expect(output(await run(ctx, { path: target, old_string: "BETA", new_string: "beta!" })).warning).toBeUndefined();
  });

  it("edits the editor's buffer through the ports", async () => {
    const writes: string[] = [];
    put("r/buf.txt", "disk\n");
    const { ctx } = setup(true, { readTextFile: async () => "unsaved text\n", writeTextFile: async (_p, c) => void writes.push(c) });
    output(await run(ctx, { path: "r/buf.txt", old_string: "unsaved", new_string: "edited" }));
    expect(writes).toEqual(["edited text\n"]);
  });
});

describe("patch, patch mode", () => {
  it("asks once for every change (delete as null, move with fromPath) and applies them all", async () => {
    put("p/modify.txt", "a\nb\n");
    put("p/delete.txt", "bye\n");
    put("p/from.txt", "moving\n");
    const { ctx, requests } = setup();
    const patch = [
      "*** Begin Patch",
      "*** Update File: p/modify.txt",
      "-b",
      "+B",
      "*** Delete File: p/delete.txt",
      "*** Move File: p/from.txt -> p/sub/to.txt",
      "*** Add File: p/new.txt",
      "+fresh",
      "*** End Patch",
    ].join("\n");
    const result = await run(ctx, { mode: "patch", patch });
    const abs = (name: string): string => path.join(dir, name);
    const files = [
      { path: abs("p/modify.txt"), oldText: "a\nb\n", newText: "a\nB\n" },
      { path: abs("p/delete.txt"), oldText: "bye\n", newText: null },
      { path: abs("p/sub/to.txt"), oldText: "moving\n", newText: "moving\n", fromPath: abs("p/from.txt") },
      { path: abs("p/new.txt"), oldText: null, newText: "fresh\n" },
    ];
    expect(requests).toEqual([{ callId: "call_p", toolName: "patch", edits: files }]);
    const out = output(result);
    expect(out).toMatchObject({
      files_modified: [abs("p/modify.txt")],
      files_deleted: [abs("p/delete.txt")],
      files_moved: [`${abs("p/from.txt")} -> ${abs("p/sub/to.txt")}`],
      files_created: [abs("p/new.txt")],
    });
    const details = result.details as PatchDetails;
    expect(details.mode).toBe("patch");
    expect(details.files).toEqual(files);
    expect(details.diff).toContain("--- a/p/modify.txt\n+++ b/p/modify.txt\n");
    expect(details.diff).toContain("--- a/p/delete.txt\n+++ /dev/null\n");
    expect(details.diff).toContain("--- a/p/from.txt\n+++ b/p/sub/to.txt\n");
    expect(details.diff).toContain("--- /dev/null\n+++ b/p/new.txt\n");
    expect(out.diff).toBe(details.diff);
    expect(disk("p/modify.txt")).toBe("a\nB\n");
    expect(existsSync(abs("p/delete.txt"))).toBe(false);
    expect(existsSync(abs("p/from.txt"))).toBe(false);
    expect(disk("p/sub/to.txt")).toBe("moving\n");
    expect(disk("p/new.txt")).toBe("fresh\n");
  });

  it("changes nothing when the user declines", async () => {
    put("p/d1.txt", "one\n");
    put("p/d2.txt", "two\n");
    const { ctx } = setup(false);
    const patch = "*** Begin Patch\n*** Update File: p/d1.txt\n-one\n+1\n*** Delete File: p/d2.txt\n*** End Patch";
    expect(errorOf(await run(ctx, { mode: "patch", patch }))).toMatch(/declined the edits to .*d1\.txt, .*d2\.txt\. The files are unchanged/);
    expect(disk("p/d1.txt")).toBe("one\n");
    expect(disk("p/d2.txt")).toBe("two\n");
  });

  it("infers patch mode from a lone patch argument and explains a missing one", async () => {
    put("p/infer.txt", "x\n");
    const { ctx } = setup();
    output(await run(ctx, { patch: "*** Begin Patch\n*** Update File: p/infer.txt\n-x\n+y\n*** End Patch" }));
    expect(disk("p/infer.txt")).toBe("y\n");
    expect(errorOf(await run(ctx, { mode: "patch" }))).toMatch(/needs the patch text/);
  });

  it("refuses binary files before validating anything", async () => {
    put("p/image.png", "\x89PNG\0\0");
    const { ctx, requests } = setup();
    const patch = "*** Begin Patch\n*** Delete File: p/image.png\n*** End Patch";
    expect(errorOf(await run(ctx, { mode: "patch", patch }))).toMatch(/no files were modified[\s\S]*Binary file/);
    expect(requests).toEqual([]);
  });

  it("warns about files changed since they were read", async () => {
    const target = put("p/stale.txt", "1\n2\n");
    const { ctx } = setup();
    await readFileTool.execute({ path: target }, ctx);
    put("p/stale.txt", "1\n2\n3\n");
    const out = output(await run(ctx, { mode: "patch", patch: "*** Begin Patch\n*** Update File: p/stale.txt\n-2\n+two\n*** End Patch" }));
    expect(out.warnings).toEqual([expect.stringMatching(/stale\.txt was modified since you last read it/)]);
  });
});

describe("patch tool definition", () => {
  it("describes calls by mode", () => {
    const ctx = { cwd: "/w" };
    expect(describeCall(patchTool, "patch", { path: "src/a.ts", old_string: "a", new_string: "b" }, ctx)).toEqual({
      title: "patch (replace): src/a.ts",
      locations: [{ path: "/w/src/a.ts" }],
    });
    expect(
      describeCall(patchTool, "patch", { mode: "patch", patch: "*** Begin Patch\n*** Update File: b.py\n*** Add File: /abs/c.py\n" }, ctx),
    ).toEqual({ title: "patch (patch): b.py", locations: [{ path: "/w/b.py" }, { path: "/abs/c.py" }] });
    expect(describeCall(patchTool, "patch", { mode: "patch", patch: "nonsense" }, ctx)).toEqual({ title: "patch (patch)", locations: [] });
  });

  it("has one JSON schema, is a mutating edit, and sits after read_file and write_file", () => {
    expect(patchTool.kind).toBe("edit");
    expect(patchTool.mutating).toBe(true);
    expect(parseToolArgs(patchTool, '{"mode":"replace","path":"a","old_string":"x","new_string":"y","replace_all":true}').ok).toBe(true);
    expect(parseToolArgs(patchTool, '{"mode":"unified"}').ok).toBe(false);
    const names = hermesAcpTools().map((tool) => tool.name);
    expect(names.indexOf("read_file")).toBeLessThan(names.indexOf("write_file"));
    expect(names.indexOf("write_file")).toBeLessThan(names.indexOf("patch"));
  });
});
