import { describe, expect, it } from "vitest";
import { diffLabel, unifiedDiff, unifiedDiffs } from "./unified-diff.js";

describe("unifiedDiff", () => {
  it("diffs a modification git-style", () => {
    expect(unifiedDiff({ label: "src/a.txt", oldText: "one\ntwo\nthree\n", newText: "one\n2\nthree\n" })).toBe(
      "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
    );
  });

  it("uses /dev/null for created and deleted files", () => {
    expect(unifiedDiff({ label: "n.txt", oldText: null, newText: "x\n" })).toBe("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+x\n");
    expect(unifiedDiff({ label: "o.txt", oldText: "x\n", newText: null })).toBe("--- a/o.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n");
    expect(unifiedDiff({ label: "e.txt", oldText: null, newText: "" })).toBe("--- /dev/null\n+++ b/e.txt\n");
  });

  it("shows a move, compares without BOM and CRLF, and is empty for no change", () => {
    expect(unifiedDiff({ label: "b", fromLabel: "a", oldText: "x\n", newText: "x\n" })).toBe("--- a/a\n+++ b/b\n");
    expect(unifiedDiff({ label: "f", oldText: "\uFEFFa\r\nb\r\n", newText: "\uFEFFa\r\nc\r\n" })).toBe(
      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
    );
    expect(unifiedDiff({ label: "f", oldText: "same\n", newText: "same\n" })).toBe("");
  });

  it("skips the hunks of changes too large to diff", () => {
    const before = Array.from({ length: 2500 }, (_, i) => `a${i}`).join("\n");
    const after = Array.from({ length: 2500 }, (_, i) => `b${i}`).join("\n");
    expect(unifiedDiff({ label: "big", oldText: before, newText: after })).toBe("--- a/big\n+++ b/big\n(diff omitted: too many changed lines)\n");
  });

  it("concatenates several diffs", () => {
    expect(unifiedDiffs([
      { label: "a", oldText: "1\n", newText: "1\n" },
      { label: "b", oldText: null, newText: "2\n" },
    ])).toBe("--- /dev/null\n+++ b/b\n@@ -0,0 +1,1 @@\n+2\n");
  });
});

describe("diffLabel", () => {
  it("is relative inside the cwd and absolute (without a doubled slash) outside", () => {
    expect(diffLabel("/work/src/a.ts", "/work")).toBe("src/a.ts");
    expect(diffLabel("/etc/hosts", "/work")).toBe("etc/hosts");
  });
});
