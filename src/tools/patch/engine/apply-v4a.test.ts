import { describe, expect, it } from "vitest";
import { applyV4aPatch, applyHunks, type ApplyResult } from "./apply-v4a.js";
import { shiftIndent } from "./indent.js";
import { parseV4aPatch } from "./parse-v4a.js";

function apply(files: Record<string, string>, body: string): ApplyResult {
  const parsed = parseV4aPatch(`*** Begin Patch\n${body}\n*** End Patch`);
  if (!parsed.ok) throw new Error(parsed.error);
  return applyV4aPatch(parsed.ops, { resolve: (path) => `/root/${path}`, read: (key) => files[key.slice(6)] ?? null });
}

describe("applyV4aPatch", () => {
  it("reports one move for a moved and edited file, keyed by resolved paths", () => {
    const result = apply({ "a.txt": "x\ny\n" }, "*** Move File: a.txt -> b.txt\n*** Update File: b.txt\n-y\n+z");
    expect(result).toEqual({
      ok: true,
      alreadyAppliedHunks: 0,
      changes: [{ path: "/root/b.txt", label: "b.txt", oldText: "x\ny\n", newText: "x\nz\n", fromPath: "/root/a.txt", fromLabel: "a.txt" }],
    });
  });

  it("folds a chain of moves into one", () => {
    const result = apply({ "a": "1\n" }, "*** Move File: a -> b\n*** Move File: b -> c");
    expect(result).toMatchObject({ ok: true, changes: [{ path: "/root/c", fromPath: "/root/a", oldText: "1\n", newText: "1\n" }] });
  });

  it("lets later operations see earlier ones: delete then add, add then update", () => {
    const result = apply({ "f": "old\n" }, "*** Delete File: f\n*** Add File: f\n+new\n*** Add File: g\n+one\n*** Update File: g\n-one\n+two");
    expect(result).toMatchObject({
      ok: true,
      changes: [
        { path: "/root/f", oldText: "old\n", newText: "new\n" },
        { path: "/root/g", oldText: null, newText: "two\n" },
      ],
    });
  });

  it("leaves out files that end as they started", () => {
    const result = apply({ "f": "a\n" }, "*** Update File: f\n-a\n+b\n*** Update File: f\n-b\n+a");
    expect(result).toEqual({ ok: true, changes: [], alreadyAppliedHunks: 0 });
  });

  it("collects every error instead of stopping at the first", () => {
    const result = apply({ "a": "1\n" }, "*** Delete File: missing\n*** Add File: a\n+2\n*** Update File: a\n-nope\n+x");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toHaveLength(3);
  });

  it("refuses a move onto an existing file", () => {
    expect(apply({ "a": "1\n", "b": "2\n" }, "*** Update File: a\n*** Move to: b\n-1\n+3")).toEqual({
      ok: false,
      errors: ["b: destination already exists; a move never overwrites a file."],
    });
  });
});

describe("applyHunks", () => {
  const hunk = (lines: string[], anchors: string[] = [], endOfFile = false) => ({
    anchors,
    endOfFile,
    lines: lines.map((line) => ({ op: line[0] as " " | "-" | "+", text: line.slice(1) })),
  });

  it("applies hunks in order, each after the previous one", () => {
    const text = "x\ny\nx\ny\n";
    const outcome = applyHunks(text, [hunk([" x", "-y", "+first"]), hunk([" x", "-y", "+second"])], "f");
    expect(outcome).toEqual({ ok: true, text: "x\nfirst\nx\nsecond\n", alreadyApplied: 0 });
  });

  it("finds a hunk before the cursor when it occurs exactly once", () => {
    const outcome = applyHunks("a\nb\nc\n", [hunk([" c", "+d"]), hunk(["-a", "+A"])], "f");
    expect(outcome).toMatchObject({ ok: true, text: "A\nb\nc\nd\n" });
  });

  it("appends addition-only hunks without anchors at the end", () => {
    expect(applyHunks("a\n", [hunk(["+b"])], "f")).toMatchObject({ ok: true, text: "a\nb\n" });
    expect(applyHunks("", [hunk(["+first"])], "f")).toMatchObject({ ok: true, text: "first\n" });
  });

  it("re-indents added lines when the match ignored indentation", () => {
    const text = "def f():\n        a = 1\n        b = 2\n";
    const outcome = applyHunks(text, [hunk(["   a = 1", "-  b = 2", "+  b = 3", "+  if b:", "+    c = b"])], "f");
    expect(outcome).toMatchObject({ ok: true, text: "def f():\n        a = 1\n        b = 3\n        if b:\n          c = b\n" });
  });

  it("names the anchor that was not found and offers similar lines", () => {
    const outcome = applyHunks("def alpha():\n    pass\n", [hunk(["-pass", "+return"], ["def alpah():"])], "f.py");
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatch(/^f\.py: hunk 1 \(@@ def alpah\(\):\): the anchor line 'def alpah\(\):' was not found/);
    expect(!outcome.ok && outcome.error).toContain("1| def alpha():");
  });

  it("counts hunks whose change is already present", () => {
    expect(applyHunks("a\nB\n", [hunk([" a", "-b", "+B"])], "f")).toEqual({ ok: true, text: "a\nB\n", alreadyApplied: 1 });
  });
});

describe("shiftIndent", () => {
  it("shifts space indentation by the width difference", () => {
    expect(shiftIndent("    x", "  ", "    ")).toBe("      x");
    expect(shiftIndent("x", "    ", "  ")).toBe("x");
  });
  it("swaps prefixes when tabs are involved", () => {
    expect(shiftIndent("    x", "    ", "\t")).toBe("\tx");
    expect(shiftIndent("x", "  ", "\t")).toBe("\tx");
  });
});
