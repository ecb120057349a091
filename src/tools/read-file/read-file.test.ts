import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRegistry, describeCall, parseToolArgs } from "../registry.js";
import type { ToolPorts } from "../ports.js";
import type { ToolContext, ToolResult } from "../types.js";
import { hermesAcpTools } from "../toolsets.js";
import { readFileTool, type ReadFileDetails } from "./read-file.js";
import { toolContext } from "../../../test/support/tool-context.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "read-file-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function ctx(ports: ToolPorts = {}, signal = new AbortController().signal): ToolContext {
  return toolContext({ cwd: dir, signal, ports });
}

function write(name: string, content: string | Uint8Array): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

async function read(args: Record<string, unknown>, ports: ToolPorts = {}): Promise<ToolResult> {
  const parsed = readFileTool.params.parse(args);
  return readFileTool.execute(parsed, ctx(ports));
}

interface ReadOutput {
  content: string;
  total_lines: number;
  file_size: number;
  truncated: boolean;
  hint?: string;
}

function output(result: ToolResult): ReadOutput {
  expect(result.isError).toBeFalsy();
  return JSON.parse(result.content) as ReadOutput;
}

function errorOf(result: ToolResult): { error: string; similar_files?: string[] } {
  expect(result.isError).toBe(true);
  return JSON.parse(result.content) as { error: string; similar_files?: string[] };
}

function numbered(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
}

describe("read_file", () => {
  it("reads a file with a compact line-number gutter", async () => {
    const file = write("basic.txt", "alpha\nbeta\ngamma\n");
    const result = await read({ path: file });
    expect(output(result)).toEqual({
      content: "1|alpha\n2|beta\n3|gamma",
      total_lines: 3,
      file_size: 17,
      truncated: false,
    });
    const details = result.details as ReadFileDetails;
    expect(details).toEqual({ path: file, offset: 1, limit: 500, totalLines: 3, content: "1|alpha\n2|beta\n3|gamma" });
  });

  it("resolves relative paths against ctx.cwd", async () => {
    write("sub/rel.txt", "relative\n");
    const result = await read({ path: "sub/rel.txt" });
    expect(output(result).content).toBe("1|relative");
    expect((result.details as ReadFileDetails).path).toBe(path.join(dir, "sub/rel.txt"));
  });

  it("pages with offset and limit and hints where to continue", async () => {
    const file = write("many.txt", numbered(30));
    const first = output(await read({ path: file, offset: 5, limit: 10 }));
    expect(first.content.split("\n")[0]).toBe("5|line 5");
    expect(first.content.split("\n")).toHaveLength(10);
    expect(first.truncated).toBe(true);
    expect(first.total_lines).toBe(30);
    expect(first.hint).toBe("Use offset=15 to continue reading (showing 5-14 of 30 lines)");

    const last = output(await read({ path: file, offset: 25, limit: 10 }));
    expect(last.content.split("\n")).toEqual(["25|line 25", "26|line 26", "27|line 27", "28|line 28", "29|line 29", "30|line 30"]);
    expect(last.truncated).toBe(false);
    expect(last.hint).toBeUndefined();
  });

  it("reads 500 lines by default and clamps limit to 2000", async () => {
    const file = write("long.txt", numbered(2500));
    const byDefault = output(await read({ path: file }));
    expect(byDefault.content.split("\n")).toHaveLength(500);
    expect(byDefault.hint).toBe("Use offset=501 to continue reading (showing 1-500 of 2500 lines)");

    const result = await read({ path: file, limit: 5000 });
    const clamped = output(result);
    expect(clamped.content.split("\n")).toHaveLength(2000);
    expect(clamped.hint).toBe("Use offset=2001 to continue reading (showing 1-2000 of 2500 lines)");
    expect((result.details as ReadFileDetails).limit).toBe(2000);
  });

  it("accepts numeric strings for offset and limit, and rejects zero", () => {
    expect(parseToolArgs(readFileTool, '{"path":"a","offset":"3","limit":"4"}')).toEqual({
      ok: true,
      args: { path: "a", offset: 3, limit: 4 },
    });
    const bad = parseToolArgs(readFileTool, '{"path":"a","offset":0}');
    expect(bad.ok).toBe(false);
  });

  it("cuts lines longer than 2000 chars", async () => {
    const file = write("wide.txt", `${"x".repeat(2500)}\nshort\n`);
    const lines = output(await read({ path: file })).content.split("\n");
    expect(lines[0]).toBe(`1|${"x".repeat(2000)}... [truncated]`);
    expect(lines[1]).toBe("2|short");
  });

  it("refuses a selection over 100,000 chars and suggests a smaller range", async () => {
    const file = write("huge-selection.txt", `${"y".repeat(1500)}\n`.repeat(100));
    const { error } = errorOf(await read({ path: file }));
    expect(error).toMatch(/100000-character limit/);
    expect(error).toMatch(/offset=1 limit=\d+/);
    const fit = Number(/limit=(\d+)/.exec(error)?.[1]);
    expect(fit).toBeGreaterThan(0);
    expect(output(await read({ path: file, limit: fit })).content.length).toBeLessThanOrEqual(100_000);
  });

  it("returns empty content and a hint when offset is past the end", async () => {
    const file = write("short.txt", "one\ntwo\n");
    const out = output(await read({ path: file, offset: 10 }));
    expect(out.content).toBe("");
    expect(out.total_lines).toBe(2);
    expect(out.truncated).toBe(false);
    expect(out.hint).toMatch(/has 2 lines/);
  });

  it("suggests similar files when the file is not found", async () => {
    write("near/config.yaml", "a: 1\n");
    write("near/config.json", "{}\n");
    write("near/unrelated.md", "x\n");
    const { error, similar_files } = errorOf(await read({ path: "near/confg.yaml" }));
    expect(error).toBe(`File not found: ${path.join(dir, "near/confg.yaml")}`);
    expect(similar_files).toContain(path.join(dir, "near/config.yaml"));
    expect(similar_files).not.toContain(path.join(dir, "near/unrelated.md"));
    expect(similar_files!.length).toBeLessThanOrEqual(5);

    const none = errorOf(await read({ path: "no-such-dir/file.txt" }));
    expect(none.similar_files).toBeUndefined();
  });

  it("refuses a directory and points at search", async () => {
    mkdirSync(path.join(dir, "a-dir"), { recursive: true });
    const { error } = errorOf(await read({ path: "a-dir" }));
    expect(error).toMatch(/is a directory/);
    expect(error).toMatch(/search_files/);
  });

  it("refuses binary content by NUL byte, naming the type", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), Buffer.alloc(4188, 1)]);
    write("picture.data", png);
    expect(errorOf(await read({ path: "picture.data" })).error).toBe(
      "Binary file (PNG image, 4.1 KB) — cannot display as text",
    );
    write("blob.txt", Buffer.from("abc\0def"));
    expect(errorOf(await read({ path: "blob.txt" })).error).toBe("Binary file (binary data, 7 bytes) — cannot display as text");
  });

  it("refuses known binary extensions without reading them", async () => {
    write("font.woff", "not really a font");
    expect(errorOf(await read({ path: "font.woff" })).error).toMatch(/^Binary file \(WOFF font, 17 bytes\)/);
    write("image.PNG", "text pretending");
    expect(errorOf(await read({ path: "image.PNG" })).error).toMatch(/PNG image/);
  });

  it("refuses device paths, also behind a symlink", async () => {
    expect(errorOf(await read({ path: "/dev/zero" })).error).toMatch(/device/);
    expect(errorOf(await read({ path: "/proc/self/fd/0" })).error).toMatch(/device/);
    symlinkSync("/dev/zero", path.join(dir, "zero-link"));
    expect(errorOf(await read({ path: "zero-link" })).error).toMatch(/not a regular file/);
  });

  it("shows CRLF lines without \\r", async () => {
    const file = write("windows.txt", "first\r\nsecond\r\nthird");
    const out = output(await read({ path: file }));
    expect(out.content).toBe("1|first\n2|second\n3|third");
    expect(out.total_lines).toBe(3);
  });

  it("strips a UTF-8 BOM and keeps multi-byte text intact", async () => {
    const file = write("bom.txt", "\uFEFFhéllo — 日本\n");
    expect(output(await read({ path: file })).content).toBe("1|héllo — 日本");
  });

  it("reads an empty file", async () => {
    const file = write("empty.txt", "");
    const out = output(await read({ path: file }));
    expect(out).toMatchObject({ content: "", total_lines: 0, file_size: 0, truncated: false });
  });

  it("streams files over 10 MB, reading only the requested window", async () => {
    const line = "z".repeat(99);
    const count = 110_000;
    const file = write("big.log", `${line}\n`.repeat(count - 1) + "last line");
    const out = output(await read({ path: file, offset: count - 1, limit: 5 }));
    expect(out.total_lines).toBe(count);
    expect(out.content).toBe(`${count - 1}|${line}\n${count}|last line`);
    expect(out.file_size).toBe(100 * (count - 1) + 9);
  });

  it("reads through ports.readTextFile when provided", async () => {
    const file = write("buffer.ts", "on disk\n");
    const asked: string[] = [];
    const ports: ToolPorts = {
      readTextFile: async (p) => {
        asked.push(p);
        return "unsaved\nbuffer\n";
      },
    };
    expect(output(await read({ path: "buffer.ts" }, ports)).content).toBe("1|unsaved\n2|buffer");
    expect(asked).toEqual([file]);

    write("still-binary.png", "whatever");
    expect(errorOf(await read({ path: "still-binary.png" }, ports)).error).toMatch(/PNG image/);

    const failing: ToolPorts = { readTextFile: () => Promise.reject(new Error("no such buffer")) };
    expect(errorOf(await read({ path: "ghost.ts" }, failing)).error).toMatch(/File not found/);
  });

  it("throws an AbortError when the signal already fired", async () => {
    const file = write("abort.txt", "x\n");
    const controller = new AbortController();
    controller.abort();
    await expect(readFileTool.execute({ path: file }, ctx({}, controller.signal))).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("describes calls with a title and location", () => {
    expect(describeCall(readFileTool, "read_file", { path: "/abs/file.ts", offset: 12 }, { cwd: "/work" })).toEqual({
      title: "read: /abs/file.ts",
      locations: [{ path: "/abs/file.ts", line: 12 }],
    });
    expect(describeCall(readFileTool, "read_file", { path: "src/a.ts" }, { cwd: "/work" })).toEqual({
      title: "read: src/a.ts",
      locations: [{ path: "/work/src/a.ts" }],
    });
    expect(readFileTool.describe({ path: "~/notes.md" }, { cwd: "/work" })).toEqual({
      title: "read: ~/notes.md",
      locations: [{ path: path.join(os.homedir(), "notes.md") }],
    });
    expect(readFileTool.kind).toBe("read");
    expect(readFileTool.mutating).toBe(false);
  });

  it("exposes a JSON schema with path required", () => {
    const [schema] = new ToolRegistry([readFileTool]).schemas();
    expect(schema?.name).toBe("read_file");
    const parameters = schema?.parameters as { required?: string[]; properties: Record<string, { type?: string }> };
    expect(parameters.required).toEqual(["path"]);
    expect(parameters.properties.path?.type).toBe("string");
    expect(parameters.properties.offset?.type).toBe("integer");
    expect(parameters.properties.limit?.type).toBe("integer");
  });

  it("is part of the hermes-acp toolset", () => {
    expect(hermesAcpTools().map((tool) => tool.name)).toContain("read_file");
  });
});
