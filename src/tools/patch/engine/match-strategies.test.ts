import { describe, expect, it } from "vitest";
import {
  blockAnchor,
  contextAware,
  escapeNormalized,
  exact,
  findMatches,
  indentationFlexible,
  lineTrimmed,
  trimmedBoundary,
  unicodeNormalized,
  whitespaceNormalized,
  type Span,
} from "./match-strategies.js";

/** The matched texts, for readable assertions. */
function texts(content: string, spans: Span[]): string[] {
  return spans.map((span) => content.slice(span.start, span.end));
}

describe("exact", () => {
  it("finds every occurrence without overlaps", () => {
    expect(exact("aaaa", "aa")).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 4 },
    ]);
    expect(exact("abc", "x")).toEqual([]);
  });
});

describe("line_trimmed", () => {
  const content = "start\n    foo = 1   \n\tbar()\nend";
  it("compares each line trimmed and spans whole lines", () => {
    expect(texts(content, lineTrimmed(content, "foo = 1\nbar()"))).toEqual(["    foo = 1   \n\tbar()"]);
  });
  it("keeps a pattern's final newline inside the span", () => {
    expect(texts(content, lineTrimmed(content, "foo = 1\n"))).toEqual(["    foo = 1   \n"]);
  });
  it("does not match partial lines", () => {
    expect(lineTrimmed(content, "foo")).toEqual([]);
  });
});

describe("whitespace_normalized", () => {
  it("treats runs of blanks as one space and maps back to the original text", () => {
    const content = "x = call(a,   b)\ty\n";
    expect(texts(content, whitespaceNormalized(content, "call(a, b)"))).toEqual(["call(a,   b)"]);
    expect(texts(content, whitespaceNormalized(content, "call(a, b) y"))).toEqual(["call(a,   b)\ty"]);
  });
  it("does not swallow blanks after a match that ends in a non-blank", () => {
    const content = "value  =  1  # note";
    expect(texts(content, whitespaceNormalized(content, "value = 1"))).toEqual(["value  =  1"]);
  });
  it("ignores blank-only patterns", () => {
    expect(whitespaceNormalized("a  b", "  ")).toEqual([]);
  });
});

describe("indentation_flexible", () => {
  it("ignores leading whitespace but not trailing", () => {
    const content = "\t\tif x:\n\t\t\treturn 1\n";
    expect(texts(content, indentationFlexible(content, "if x:\n    return 1"))).toEqual(["\t\tif x:\n\t\t\treturn 1"]);
    expect(indentationFlexible(content, "if x:  \n return 1")).toEqual([]);
  });
});

describe("escape_normalized", () => {
  it("reads literal \\n and \\t in the pattern as the characters", () => {
    const content = "a\n\tb\n";
    expect(texts(content, escapeNormalized(content, "a\\n\\tb"))).toEqual(["a\n\tb"]);
  });
  it("does nothing for patterns without escapes", () => {
    expect(escapeNormalized("a\nb", "a")).toEqual([]);
  });
});

describe("trimmed_boundary", () => {
  it("trims only the first and last lines", () => {
    const content = "   first  \n  middle\n last   ";
    expect(texts(content, trimmedBoundary(content, "first\n  middle\nlast"))).toEqual([content]);
    expect(trimmedBoundary(content, "first\nmiddle\nlast")).toEqual([]);
  });
});

describe("unicode_normalized", () => {
  const content = "He said \u201chello\u201d \u2014 then left\u2026\nprice\u00a010\u201320\n";
  it("matches ASCII patterns against typographic characters and spans the originals", () => {
    expect(texts(content, unicodeNormalized(content, '"hello" -- then left...'))).toEqual([
      "\u201chello\u201d \u2014 then left\u2026",
    ]);
    expect(texts(content, unicodeNormalized(content, "price 10-20"))).toEqual(["price\u00a010\u201320"]);
  });
  it("matches typographic patterns against ASCII files", () => {
    const ascii = 'say "hi" -- ok';
    expect(texts(ascii, unicodeNormalized(ascii, "\u201chi\u201d \u2014 ok"))).toEqual(['"hi" -- ok']);
  });
  it("rejects matches that would split one original character", () => {
    expect(unicodeNormalized("a\u2014b", "-b")).toEqual([]);
  });
  it("does nothing when neither side has such characters", () => {
    expect(unicodeNormalized("plain", "plain")).toEqual([]);
  });
});

describe("block_anchor", () => {
  const content = ["def run():", "    a = 1", "    b = 2", "    return a + b", "", "other()"].join("\n");
  it("anchors on first and last line and accepts a similar middle", () => {
    const pattern = ["def run():", "    a = 1", "    b = 3", "    return a + b"].join("\n");
    expect(texts(content, blockAnchor(content, pattern))).toEqual([content.split("\n").slice(0, 4).join("\n")]);
  });
  it("rejects a dissimilar middle and short patterns", () => {
    const pattern = ["def run():", "    completely = different()", "    zzz.qqq(9, 8, 7)", "    return a + b"].join("\n");
    expect(blockAnchor(content, pattern)).toEqual([]);
    expect(blockAnchor(content, "def run():\n    return a + b")).toEqual([]);
  });
});

describe("context_aware", () => {
  it("accepts blocks whose every line is at least 80 % similar", () => {
    const content = "function total(items) {\n  return items.length;\n}\n";
    const pattern = "function totl(items) {\n  return item.length;\n}";
    expect(texts(content, contextAware(content, pattern))).toEqual(["function total(items) {\n  return items.length;\n}"]);
  });
  it("rejects a block with one unrelated line", () => {
    const content = "function total(items) {\n  return items.length;\n}\n";
    expect(contextAware(content, "function total(items) {\n  launchMissiles(now);\n}")).toEqual([]);
  });
});

describe("findMatches", () => {
  it("uses the first strategy in order that matches", () => {
    expect(findMatches("a  b", "a  b")?.strategy).toBe("exact");
    expect(findMatches("  x\n  y", "x\ny")?.strategy).toBe("line_trimmed");
    expect(findMatches("f(a,  b)", "f(a, b)")?.strategy).toBe("whitespace_normalized");
    // indentation_flexible only ever sees what line_trimmed (a superset) already missed; it is kept for Hermes' order.
    expect(findMatches("a\nb", "a\\nb")?.strategy).toBe("escape_normalized");
    expect(findMatches("it\u2019s", "it's")?.strategy).toBe("unicode_normalized");
    expect(findMatches("nothing here", "absent")).toBeUndefined();
  });
});
