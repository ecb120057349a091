import { describe, expect, it } from "vitest";
import { fuzzyReplace, isAlreadyApplied, keepFileCharacters } from "./replace.js";
import { reindent } from "./indent.js";

function replaced(content: string, oldString: string, newString: string, replaceAll = false): { content: string; strategy: string | null } {
  const outcome = fuzzyReplace(content, oldString, newString, replaceAll);
  if (!outcome.ok) throw new Error(outcome.error);
  return { content: outcome.content, strategy: outcome.strategy };
}

function failed(content: string, oldString: string, newString: string, replaceAll = false): string {
  const outcome = fuzzyReplace(content, oldString, newString, replaceAll);
  if (outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe("fuzzyReplace, one case per strategy", () => {
  it.each([
    ["exact", "a = 1\nb = 2\n", "b = 2", "b = 3", "a = 1\nb = 3\n"],
    ["line_trimmed", "if x:\n    y = 1   \n", "if x:\ny = 1", "if x:\ny = 2", "if x:\ny = 2\n"],
    ["whitespace_normalized", "call(a,   b)\n", "call(a, b)", "call(a, c)", "call(a, c)\n"],
    ["escape_normalized", "one\ntwo\n", "one\\ntwo", "one\\nthree", "one\nthree\n"],
    ["unicode_normalized", "msg = \u201cit\u2019s done\u201d\n", "msg = \"it's done\"", "msg = \"it's finished\"", "msg = \u201cit\u2019s finished\u201d\n"],
    [
      "block_anchor",
      "def f():\n    a = 1\n    b = 2\n    return a\n",
      "def f():\n    a = 1\n    b = 3\n    return a",
      "def f():\n    return 0",
      "def f():\n    return 0\n",
    ],
    [
      "context_aware",
      "total = compute(items)\nprint(total)\n",
      "totl = compute(item)\nprint(totl)",
      "total = compute(items) * 2\nprint(total)",
      "total = compute(items) * 2\nprint(total)\n",
    ],
  ])("%s", (strategy, content, oldString, newString, expected) => {
    expect(replaced(content, oldString, newString)).toEqual({ content: expected, strategy });
  });

  // indentation_flexible and trimmed_boundary accept only what line_trimmed already accepts, so in
  // Hermes' order they never win; match-strategies.test.ts tests them on their own.
});

describe("fuzzyReplace rules", () => {
  const twice = "def a():\n    return 1\n\ndef b():\n    return 1\n";

  it("lists every match as L<line>: <snippet> when old_string is not unique", () => {
    const error = failed(twice, "return 1", "return 2");
    expect(error).toContain("Found 2 matches for old_string");
    expect(error).toContain("replace_all");
    expect(error).toContain("  L2: return 1\n  L5: return 1");
  });

  it("caps the list at five and says how many more", () => {
    const error = failed("x\n".repeat(8), "x", "y");
    expect(error).toContain("  L5: x\n  ... and 3 more");
  });

  it("replaces every match with replace_all and reports their lines", () => {
    const outcome = fuzzyReplace(twice, "return 1", "return 2", true);
    expect(outcome).toMatchObject({ ok: true, count: 2, lines: [2, 5], content: twice.replaceAll("return 1", "return 2") });
  });

  it("refuses replace_all over several approximate matches", () => {
    const content = "total = compute(items)\nx\ntotal = compute(items)\n";
    expect(failed(content, "totl = compute(item)", "y", true)).toMatch(/approximate matches/);
  });

  it("rejects empty, blank and identical strings", () => {
    expect(failed("abc", "", "x")).toMatch(/cannot be empty/);
    expect(failed("a  b", "  ", "x")).toMatch(/only whitespace/);
    expect(failed("abc", "abc", "abc")).toMatch(/identical/);
  });

  it("treats an edit that is already present as a successful no-op", () => {
    const content = "const timeout = 30_000;\n";
    expect(fuzzyReplace(content, "const timeout = 10_000;", "const timeout = 30_000;")).toEqual({
      ok: true,
      content,
      count: 0,
      strategy: null,
      alreadyApplied: true,
      lines: [],
    });
    expect(fuzzyReplace(content, "const timeout = 30_000;", "const timeout = 30_000;")).toMatchObject({ ok: true, alreadyApplied: true });
    expect(isAlreadyApplied("ab", "x", "ab")).toBe(false);
  });

  it("offers similar sections when nothing matches", () => {
    const content = "function alpha() {\n  return 1;\n}\n\nfunction beta() {\n  return 2;\n}\n";
    const error = failed(content, "function alpha(x, y) {\n  return x * y;\n}", "x");
    expect(error).toContain("Could not find a match for old_string");
    expect(error).toContain("Did you mean one of these sections?");
    expect(error).toMatch(/\s+1\| function alpha\(\) \{/);
  });

  it("points out whitespace differences in the closest line", () => {
    const content = "if ok:\n\tdo_it()\n\tdone = True\n";
    const error = failed(content, "  do_it()\n  missing()", "x");
    expect(error).toContain("file has: →do_it()");
    expect(error).toContain("you sent: ··do_it()");
  });

  it("refuses escape drift that would write backslashes into the file", () => {
    const content = "  msg = 'it's'\n";
    expect(failed(content, "msg = \\'it\\'s\\'", "msg = \\'its\\'")).toMatch(/extra backslash/);
  });

  it("turns literal \\t into tabs only where the matched text has tabs", () => {
    const content = "if x:\n\tfoo()\n";
    expect(replaced(content, "if x:\n    foo()", "if x:\n\\tbar()").content).toBe("if x:\n\tbar()\n");
    expect(replaced('sep = "\\t"\n', 'sep = "\\t"', 'sep = "\\t\\t"').content).toBe('sep = "\\t\\t"\n');
  });

  it("re-indents the replacement to the file's indentation after a fuzzy match", () => {
    const content = "class A:\n    def f(self):\n        return 1\n";
    expect(replaced(content, "def f(self):\n    return 1", "def f(self):\n    x = 2\n    return x").content).toBe(
      "class A:\n    def f(self):\n        x = 2\n        return x\n",
    );
  });

  it("keeps the file's typographic characters in the parts the edit did not change", () => {
    const content = "Title \u2014 \u201cQuoted\u201d text\n";
    expect(replaced(content, 'Title -- "Quoted" text', 'Title -- "Quoted" words').content).toBe(
      "Title \u2014 \u201cQuoted\u201d words\n",
    );
  });
});

describe("reindent", () => {
  it("scales 2-space indentation to the file's 4 spaces", () => {
    expect(reindent("def b():\n    return 1", "def b():\n  return 1", "def b():\n  if x:\n    return 2")).toBe(
      "def b():\n    if x:\n        return 2",
    );
  });
  it("shifts by a constant amount", () => {
    expect(reindent("        a()\n        b()", "a()\nb()", "a()\n  c()")).toBe("        a()\n          c()");
  });
  it("swaps tab base indentation", () => {
    expect(reindent("\tfoo()\n\t\tbar()", "foo()\n    bar()", "foo()\n    baz()")).toBe("\tfoo()\n\t    baz()");
  });
  it("leaves the replacement alone when the indentation already agrees", () => {
    expect(reindent("  a\n  b", "  a\n  b", "  c")).toBe("  c");
  });
});

describe("keepFileCharacters", () => {
  it("falls back to the replacement when the region differs beyond typography", () => {
    expect(keepFileCharacters("a \u2014 b", "x -- y", "z")).toBe("z");
  });
});
