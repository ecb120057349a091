import { describe, expect, it } from "vitest";
import { compileGlob, hasGlobSyntax } from "./glob.js";
import { fileSearchGlob, patternHasNewline } from "./search-types.js";

function matches(glob: string, rel: string, isDir = false): boolean {
  return compileGlob(glob).matches(rel, isDir);
}

describe("compileGlob (rg --glob semantics)", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "src/deep/a.ts", true],
    ["*.ts", "a.tsx", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/deep/a.ts", false],
    ["src/*.ts", "lib/src/a.ts", false],
    ["/src/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**", "src/x/y/a.ts", true],
    ["**/test/*.py", "a/b/test/t.py", true],
    ["**/test/*.py", "test/t.py", true],
    ["*.{ts,tsx}", "src/a.tsx", true],
    ["*.{ts,tsx}", "src/a.js", false],
    ["{a,b}.ts", "x/b.ts", true],
    ["file?.txt", "file1.txt", true],
    ["file?.txt", "file10.txt", false],
    ["[ab].md", "b.md", true],
    ["[!ab].md", "b.md", false],
    ["[!ab].md", "c.md", true],
    ["\\*.md", "*.md", true],
    ["\\*.md", "a.md", false],
    ["a.b", "axb", false],
    ["src", "src/a.ts", false],
    ["(x)+.ts", "(x)+.ts", true],
  ])("%s vs %s → %s", (glob, rel, expected) => {
    expect(matches(glob, rel)).toBe(expected);
  });

  it("a trailing slash matches directories only", () => {
    expect(matches("build/", "build", true)).toBe(true);
    expect(matches("build/", "build", false)).toBe(false);
  });

  it("can be case-insensitive", () => {
    expect(compileGlob("*readme*", { caseInsensitive: true }).matches("docs/README.md", false)).toBe(true);
    expect(compileGlob("*readme*").matches("docs/README.md", false)).toBe(false);
  });

  it("takes unbalanced brackets and braces literally instead of throwing", () => {
    expect(matches("a[b.ts", "a[b.ts")).toBe(true);
    expect(matches("a{b.ts", "a{b.ts")).toBe(true);
  });
});

describe("search helpers", () => {
  it("tells glob syntax from plain names", () => {
    expect(hasGlobSyntax("*.ts")).toBe(true);
    expect(hasGlobSyntax("config")).toBe(false);
  });

  it("turns a plain file name into a case-insensitive substring glob", () => {
    expect(fileSearchGlob("config")).toEqual({ glob: "*config*", caseInsensitive: true });
    expect(fileSearchGlob("*.json")).toEqual({ glob: "*.json", caseInsensitive: false });
    expect(fileSearchGlob("src/index.ts")).toEqual({ glob: "src/index.ts", caseInsensitive: false });
  });

  it("detects regexes that want a line break", () => {
    expect(patternHasNewline("a\\nb")).toBe(true);
    expect(patternHasNewline("a\nb")).toBe(true);
    expect(patternHasNewline("a\\\\nb")).toBe(false);
    expect(patternHasNewline("a\\\\\\nb")).toBe(true);
    expect(patternHasNewline("plain")).toBe(false);
  });
});
