import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { resetReadDedup } from "../file-tracker/file-tracker.js";
import type { ToolPorts } from "../ports.js";
import type { ToolContext, ToolResult } from "../types.js";
import { writeFileTool } from "../write-file/write-file.js";
import { UNCHANGED_MESSAGE, readFileTool } from "./read-file.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "read-dedup-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STUB = JSON.stringify({ status: "unchanged", message: UNCHANGED_MESSAGE, dedup: true });

function read(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult> {
  return readFileTool.execute(readFileTool.params.parse(args), ctx);
}

function file(name: string, content: string): string {
  const full = path.join(dir, name);
  writeFileSync(full, content);
  return full;
}

describe("read_file dedup", () => {
  it("returns the exact unchanged stub for a repeated read of the same range", async () => {
    const ctx = toolContext({ cwd: dir });
    const target = file("same.txt", "a\nb\n");
    const first = await read(ctx, { path: "same.txt" });
    expect(JSON.parse(first.content)).toMatchObject({ content: "1|a\n2|b" });
    const second = await read(ctx, { path: target });
    expect(second.content).toBe(STUB);
    expect(second.isError).toBeFalsy();
    expect(second.details).toEqual({ path: target, offset: 1, limit: 500, unchanged: true });
  });

  it("reads again for another range, another session, or after the file changed", async () => {
    const ctx = toolContext({ cwd: dir });
    const target = file("change.txt", "one\ntwo\n");
    await read(ctx, { path: target });
    expect((await read(ctx, { path: target, offset: 2 })).content).not.toBe(STUB);
    expect((await read(ctx, { path: target, limit: 10 })).content).not.toBe(STUB);
    expect((await read(toolContext({ cwd: dir }), { path: target })).content).not.toBe(STUB);

    writeFileSync(target, "one\nTWO\n");
    const changed = await read(ctx, { path: target });
    expect(JSON.parse(changed.content)).toMatchObject({ content: "1|one\n2|TWO" });
    expect((await read(ctx, { path: target })).content).toBe(STUB);
  });

  it("notices a change even when the mtime is restored", async () => {
    const ctx = toolContext({ cwd: dir });
    const target = file("sneaky.txt", "abc\n");
    await read(ctx, { path: target });
    writeFileSync(target, "xyz\n");
    utimesSync(target, new Date(0), new Date(0));
    expect(JSON.parse((await read(ctx, { path: target })).content)).toMatchObject({ content: "1|xyz" });
  });

  it("reads in full again after write_file wrote the file", async () => {
    const ctx = toolContext({ cwd: dir, ports: { approveEdit: async () => true } });
    const target = file("written.txt", "before\n");
    await read(ctx, { path: target });
    await writeFileTool.execute({ path: target, content: "after\n" }, ctx);
    const after = await read(ctx, { path: target });
    expect(JSON.parse(after.content)).toMatchObject({ content: "1|after" });
    expect((await read(ctx, { path: target })).content).toBe(STUB);
  });

  it("reads in full again after resetReadDedup (context compression)", async () => {
    const ctx = toolContext({ cwd: dir });
    const target = file("compressed.txt", "x\n");
    await read(ctx, { path: target });
    resetReadDedup(ctx.state);
    expect((await read(ctx, { path: target })).content).not.toBe(STUB);
  });

  it("compares editor buffers by content", async () => {
    let buffer = "unsaved\n";
    const ports: ToolPorts = { readTextFile: async () => buffer };
    const ctx = toolContext({ cwd: dir, ports });
    const target = file("buffer.txt", "on disk\n");
    await read(ctx, { path: target });
    expect((await read(ctx, { path: target })).content).toBe(STUB);
    buffer = "edited in the editor\n";
    expect(JSON.parse((await read(ctx, { path: target })).content)).toMatchObject({ content: "1|edited in the editor" });
  });

  it("does not record failed reads", async () => {
    const ctx = toolContext({ cwd: dir });
    file("huge-lines.txt", `${"y".repeat(1500)}\n`.repeat(100));
    expect((await read(ctx, { path: "huge-lines.txt" })).isError).toBe(true);
    expect((await read(ctx, { path: "huge-lines.txt" })).isError).toBe(true);
  });
});
