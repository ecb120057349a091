import { describe, expect, it } from "vitest";
import { looksLikeUnifiedDiff, parseV4aPatch, patchPaths, scanPatchPaths, type PatchOp } from "./parse-v4a.js";

function ops(text: string): PatchOp[] {
  const parsed = parseV4aPatch(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.ops;
}

function error(text: string): string {
  const parsed = parseV4aPatch(text);
  if (parsed.ok) throw new Error(`expected an error, got ${JSON.stringify(parsed.ops)}`);
  return parsed.error;
}

describe("parseV4aPatch", () => {
  it("parses every operation kind", () => {
    const text = [
      "*** Begin Patch",
      "*** Add File: new.txt",
      "+one",
      "+",
      "+three",
      "*** Delete File: gone.txt",
      "*** Move File: a.txt -> dir/b.txt",
      "*** Update File: src/x.py",
      "*** Move to: src/y.py",
      "@@ class A",
      "@@ def f(self):",
      " keep",
      "-old",
      "+new",
      "*** End of File",
      "*** End Patch",
    ].join("\n");
    expect(ops(text)).toEqual([
      { type: "add", path: "new.txt", content: "one\n\nthree\n" },
      { type: "delete", path: "gone.txt" },
      { type: "move", path: "a.txt", to: "dir/b.txt" },
      {
        type: "update",
        path: "src/x.py",
        moveTo: "src/y.py",
        hunks: [
          {
            anchors: ["class A", "def f(self):"],
            lines: [
              { op: " ", text: "keep" },
              { op: "-", text: "old" },
              { op: "+", text: "new" },
            ],
            endOfFile: true,
          },
        ],
      },
    ]);
  });

  it("splits hunks at @@ lines and accepts '@@ text @@' anchors", () => {
    const [update] = ops("*** Begin Patch\n*** Update File: f\n@@ one @@\n-a\n+b\n@@\n-c\n+d\n*** End Patch");
    expect(update).toMatchObject({ hunks: [{ anchors: ["one"] }, { anchors: [] }] });
  });

  it("takes unprefixed lines as context, skips '\\ No newline' and tolerates CRLF and padding", () => {
    const [update] = ops("*** Begin Patch\r\n*** Update File: f\r\ncontext\r\n-a\r\n\\ No newline at end of file\r\n+b\r\n*** End Patch   \r\n");
    expect(update).toEqual({
      type: "update",
      path: "f",
      hunks: [
        {
          anchors: [],
          lines: [
            { op: " ", text: "context" },
            { op: "-", text: "a" },
            { op: "+", text: "b" },
          ],
          endOfFile: false,
        },
      ],
    });
  });

  it("accepts case and spacing variations of the markers", () => {
    expect(ops("***begin patch\n***  update file:  f.txt \n-a\n+b\n*** END PATCH")).toMatchObject([{ type: "update", path: "f.txt" }]);
  });

  it("allows a missing Begin Patch when the text starts with a file header", () => {
    expect(ops("*** Add File: x\n+y\n*** End Patch")).toEqual([{ type: "add", path: "x", content: "y\n" }]);
    expect(error("hello\n*** Add File: x\n+y\n*** End Patch")).toMatch(/must start with '\*\*\* Begin Patch'/);
  });

  it("ignores text around the Begin/End markers, such as code fences", () => {
    expect(ops("```\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n```")).toEqual([{ type: "delete", path: "x" }]);
  });

  it("refuses a patch without End Patch, since it may be cut off", () => {
    expect(error("*** Begin Patch\n*** Add File: x\n+y")).toMatch(/no '\*\*\* End Patch' line/);
  });

  it("refuses unified diffs with an explanation of V4A", () => {
    const unified = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    expect(error(unified)).toMatch(/unified diff/);
    expect(error(unified)).toContain("*** Update File: path/to/file");
    expect(error("*** Begin Patch\n--- a/f\n+++ b/f\n*** End Patch")).toMatch(/unified diff/);
    expect(error("*** Begin Patch\n*** Update File: f\n@@ -1,2 +1,2 @@\n-a\n+b\n*** End Patch")).toMatch(/unified-diff hunk header/);
    expect(looksLikeUnifiedDiff(["diff --git a/x b/x"])).toBe(true);
    expect(looksLikeUnifiedDiff(["-- a", "+++ b"])).toBe(false);
  });

  it("names the line of malformed content", () => {
    expect(error("*** Begin Patch\n*** Add File: x\nno plus\n*** End Patch")).toMatch(/^Line 3: every line of an '\*\*\* Add File' block must start with '\+'/);
    expect(error("*** Begin Patch\n*** Delete File: x\n-a\n*** End Patch")).toMatch(/Line 3: '\*\*\* Delete File' takes no content lines/);
    expect(error("*** Begin Patch\nstray\n*** End Patch")).toMatch(/Line 2: expected a file header/);
    expect(error("*** Begin Patch\n*** Frobnicate: x\n*** End Patch")).toMatch(/not a valid patch line/);
    expect(error("*** Begin Patch\n*** Update File: f\n-a\n*** Move to: g\n*** End Patch")).toMatch(/must directly follow/);
    expect(error("*** Begin Patch\n*** Move File: a b\n*** End Patch")).toMatch(/needs 'old\/path -> new\/path'/);
  });

  it("validates paths and hunks", () => {
    expect(error("*** Begin Patch\n*** Update File: f\n*** End Patch")).toMatch(/has no hunks/);
    expect(error("*** Begin Patch\n*** Delete File: a/../../b\n*** End Patch")).toMatch(/'\.\.' are not accepted/);
    expect(error("*** Begin Patch\n*** End Patch")).toMatch(/no file operations/);
    expect(error("*** Begin Patch\n*** Update File: f\n@@ anchor only\n*** End Patch")).toMatch(/has no lines/);
  });

  it("treats concatenated patches as one", () => {
    const text = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Begin Patch\n*** Delete File: b\n*** End Patch";
    expect(ops(text)).toEqual([
      { type: "delete", path: "a" },
      { type: "delete", path: "b" },
    ]);
  });
});

describe("patch paths", () => {
  it("lists every path an operation list touches", () => {
    const parsed = ops("*** Begin Patch\n*** Move File: a -> b\n*** Update File: c\n*** Move to: d\n-x\n+y\n*** Add File: a\n*** End Patch");
    expect(patchPaths(parsed)).toEqual(["a", "b", "c", "d"]);
  });

  it("scans header paths of unparsable text for describing a call", () => {
    expect(scanPatchPaths("*** Update File: src/a.ts\n-x\n*** Move File: m -> n\nunfinished")).toEqual(["src/a.ts", "m", "n"]);
    expect(scanPatchPaths("garbage")).toEqual([]);
  });
});
