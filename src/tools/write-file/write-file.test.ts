import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { EditApprovalRequest, ToolPorts } from "../ports.js";
import { readFileTool } from "../read-file/read-file.js";
import { describeCall } from "../registry.js";
import type { ToolContext, ToolResult } from "../types.js";
import { displayFormatRefusal } from "./display-format.js";
import { writeFileTool, type WriteFileDetails } from "./write-file.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "write-file-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A context whose approvals are recorded and answered with `allow`. */
function setup(allow = true, extra: ToolPorts = {}): { ctx: ToolContext; requests: EditApprovalRequest[] } {
  const requests: EditApprovalRequest[] = [];
  const ports: ToolPorts = {
    approveEdit: async (request) => {
      requests.push(request);
      return allow;
    },
    ...extra,
  };
  return { ctx: toolContext({ cwd: dir, callId: "call_w", ports }), requests };
}

function write(ctx: ToolContext, filePath: string, content: string): Promise<ToolResult> {
  return writeFileTool.execute(writeFileTool.params.parse({ path: filePath, content }), ctx);
}

function output(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.content).toBeFalsy();
  return JSON.parse(result.content) as Record<string, unknown>;
}

function errorOf(result: ToolResult): string {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content) as { error: string }).error;
}

const disk = (name: string): string => readFileSync(path.join(dir, name), "utf8");

describe("write_file", () => {
  it("creates a file and its parent directories after asking once", async () => {
    const { ctx, requests } = setup();
    const result = await write(ctx, "deep/er/new.txt", "hello\n");
    const target = path.join(dir, "deep/er/new.txt");
    expect(output(result)).toEqual({ resolved_path: target, bytes_written: 6, action: "created" });
    expect(disk("deep/er/new.txt")).toBe("hello\n");
    expect(requests).toEqual([{ callId: "call_w", toolName: "write_file", edits: [{ path: target, oldText: null, newText: "hello\n" }] }]);
    expect(result.details).toEqual({
      path: target,
      oldText: null,
      newText: "hello\n",
      diff: "--- /dev/null\n+++ b/deep/er/new.txt\n@@ -0,0 +1,1 @@\n+hello\n",
    } satisfies WriteFileDetails);
  });

  it("overwrites, reporting the old text in the approval and the diff", async () => {
    const { ctx, requests } = setup();
    writeFileSync(path.join(dir, "over.txt"), "old\n");
    const result = await write(ctx, "over.txt", "new\n");
    expect(output(result)).toMatchObject({ action: "overwritten", bytes_written: 4 });
    expect(requests[0]?.edits[0]).toMatchObject({ oldText: "old\n", newText: "new\n" });
    expect((result.details as WriteFileDetails).diff).toBe("--- a/over.txt\n+++ b/over.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n");
    expect(disk("over.txt")).toBe("new\n");
  });

  it("keeps an existing file's CRLF line endings and BOM", async () => {
    const { ctx } = setup();
    writeFileSync(path.join(dir, "win.txt"), "\uFEFFa\r\nb\r\n");
    const result = await write(ctx, "win.txt", "x\ny\nz\n");
    expect(disk("win.txt")).toBe("\uFEFFx\r\ny\r\nz\r\n");
    expect(output(result).bytes_written).toBe(Buffer.byteLength("\uFEFFx\r\ny\r\nz\r\n"));
    writeFileSync(path.join(dir, "unix.txt"), "a\n");
    await write(ctx, "unix.txt", "p\r\nq\r\n");
    expect(disk("unix.txt")).toBe("p\nq\n");
  });

  it("writes a new file exactly as given", async () => {
    const { ctx } = setup();
    await write(ctx, "fresh-crlf.txt", "a\r\nb");
    expect(disk("fresh-crlf.txt")).toBe("a\r\nb");
  });

  it("asks nothing and writes nothing when the content is already there", async () => {
    const { ctx, requests } = setup();
    writeFileSync(path.join(dir, "same.txt"), "same\r\n");
    expect(output(await write(ctx, "same.txt", "same\n"))).toMatchObject({ action: "unchanged", bytes_written: 0 });
    expect(requests).toEqual([]);
  });

  it("refuses read_file's numbered display format and its unchanged notice", async () => {
    const { ctx, requests } = setup();
    expect(errorOf(await write(ctx, "numbered.txt", "1|alpha\n2|beta\n3|gamma\n"))).toMatch(/looks like read_file output/);
    const stub = '{"status":"unchanged","message":"File unchanged since last read. The content from the earlier read_file result in this conversation is still current — refer to that instead of re-reading.","dedup":true}';
    expect(errorOf(await write(ctx, "stub.txt", stub))).toMatch(/unchanged since last read' notice/);
    expect(existsSync(path.join(dir, "numbered.txt"))).toBe(false);
    expect(requests).toEqual([]);
  });

  it("warns when the file changed on disk since the agent read it", async () => {
    const { ctx } = setup();
    const target = path.join(dir, "stale.txt");
    writeFileSync(target, "v1\n");
    await readFileTool.execute({ path: target }, ctx);
    expect(output(await write(ctx, target, "v2\n")).warning).toBeUndefined();
    writeFileSync(target, "changed by the user\n");
    const out = output(await write(ctx, target, "v3\n"));
    expect(out.warning).toMatch(/was modified since you last read it/);
    expect(disk("stale.txt")).toBe("v3\n");
    expect(output(await write(ctx, "never-read.txt", "x\n")).warning).toBeUndefined();
  });

  it("leaves the file untouched when the user declines", async () => {
    const { ctx } = setup(false);
    writeFileSync(path.join(dir, "keep.txt"), "original\n");
    const error = errorOf(await write(ctx, "keep.txt", "replaced\n"));
    expect(error).toMatch(/Edit denied: the user declined the edit to .*keep\.txt\. The file is unchanged\./);
    expect(disk("keep.txt")).toBe("original\n");
  });

  it("fails closed without an approval port", async () => {
    const ctx = toolContext({ cwd: dir });
    expect(errorOf(await write(ctx, "no-port.txt", "x"))).toMatch(/declined/);
    expect(existsSync(path.join(dir, "no-port.txt"))).toBe(false);
  });

  it("reads and writes through the editor ports when present", async () => {
    const written: Array<[string, string]> = [];
    const { ctx } = setup(true, {
      readTextFile: async () => "buffer\r\n",
      writeTextFile: async (p, content) => {
        written.push([p, content]);
      },
    });
    writeFileSync(path.join(dir, "ported.txt"), "disk\n");
    const result = await write(ctx, "ported.txt", "next\n");
    expect(written).toEqual([[path.join(dir, "ported.txt"), "next\r\n"]]);
    expect((result.details as WriteFileDetails).oldText).toBe("buffer\r\n");
    expect(disk("ported.txt")).toBe("disk\n");
  });

  it("refuses directories, devices and binary files", async () => {
    const { ctx } = setup();
    mkdirSync(path.join(dir, "a-dir"), { recursive: true });
    expect(errorOf(await write(ctx, "a-dir", "x"))).toMatch(/is a directory/);
    expect(errorOf(await write(ctx, "/dev/null", "x"))).toMatch(/device/);
    writeFileSync(path.join(dir, "blob.bin"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    expect(errorOf(await write(ctx, "blob.bin", "x"))).toMatch(/Binary file \(PNG image, 7 bytes\).*text files only/);
  });

  it("reports a write failure as an error result", async () => {
    const { ctx } = setup(true, { writeTextFile: () => Promise.reject(new Error("editor refused")) });
    expect(errorOf(await write(ctx, "fails.txt", "x"))).toMatch(/Failed to change .*fails\.txt: editor refused\. No file was changed\./);
  });

  it("throws when cancelled before writing", async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx = toolContext({ cwd: dir, signal: controller.signal, ports: { approveEdit: async () => true } });
    await expect(write(ctx, "cancelled.txt", "x")).rejects.toMatchObject({ name: "AbortError" });
    expect(existsSync(path.join(dir, "cancelled.txt"))).toBe(false);
  });

  it("describes calls and declares itself a mutating edit", () => {
    expect(describeCall(writeFileTool, "write_file", { path: "src/a.ts", content: "" }, { cwd: "/w" })).toEqual({
      title: "write: src/a.ts",
      locations: [{ path: "/w/src/a.ts" }],
    });
    expect(writeFileTool.kind).toBe("edit");
    expect(writeFileTool.mutating).toBe(true);
  });
});

describe("displayFormatRefusal", () => {
  it("accepts ordinary content, pipes and a few numbered lines", () => {
    expect(displayFormatRefusal("")).toBeUndefined();
    expect(displayFormatRefusal("a | b\n1 | 2\n")).toBeUndefined();
    expect(displayFormatRefusal("1|only one\n")).toBeUndefined();
    expect(displayFormatRefusal("intro\ntext\nmore\n1|x\n2|y\n")).toBeUndefined();
    expect(displayFormatRefusal("5|a\n1|b\n9|c\n")).toBeUndefined();
  });
  it("refuses mostly consecutively numbered lines, indented gutters included", () => {
    expect(displayFormatRefusal("  9|x\n 10|y\n 11|z\n")).toMatch(/3 of 3 lines/);
    expect(displayFormatRefusal("12|a\n13|b\n\n14|c\nplain\n")).toMatch(/3 of 4 lines/);
  });
});
