import { describe, expect, it } from "vitest";
import { FrameSplitter, nestsDeeperThan, topLevelId, type SplitLine } from "./frame-splitter.js";

const encode = (text: string) => new TextEncoder().encode(text);
const show = (lines: SplitLine[]) => lines.map((line) => (line.kind === "frame" ? new TextDecoder().decode(line.bytes) : `oversize(${line.head.length})`));

function feed(splitter: FrameSplitter, text: string, chunk: number): SplitLine[] {
  const bytes = encode(text);
  const lines: SplitLine[] = [];
  for (let i = 0; i < bytes.length; i += chunk) lines.push(...splitter.push(bytes.subarray(i, i + chunk)));
  return [...lines, ...splitter.end()];
}

describe("FrameSplitter", () => {
  it("splits LF and CRLF lines across any chunking, skipping blank lines, keeping an unterminated last line", () => {
    for (const chunk of [1, 3, 64]) {
      expect(show(feed(new FrameSplitter(100), '{"a":1}\r\n\n{"b":2}\n{"c":3}', chunk))).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    }
  });

  it("reports a line over the limit once, discards the rest of it, and goes on with the next line", () => {
    for (const chunk of [7, 64, 10_000]) {
      const lines = feed(new FrameSplitter(100), `{"id":1,"pad":"${"x".repeat(5000)}"}\n{"id":2}\n`, chunk);
      expect(show(lines).map((line) => line.replace(/\(\d+\)/, ""))).toEqual(["oversize", '{"id":2}']);
    }
  });

  it("accepts a line of exactly the limit, CR excluded", () => {
    const line = "y".repeat(10);
    expect(show(feed(new FrameSplitter(10), `${line}\r\n`, 4))).toEqual([line]);
    expect(show(feed(new FrameSplitter(10), `${line}z\n`, 4))).toEqual(["oversize(11)"]);
  });
});

describe("nestsDeeperThan", () => {
  it("counts arrays and objects outside strings only", () => {
    expect(nestsDeeperThan(encode("[".repeat(6000)), 128)).toBe(true);
    expect(nestsDeeperThan(encode(`{"a":${"[".repeat(10)}${"]".repeat(10)}}`), 11)).toBe(false);
    expect(nestsDeeperThan(encode(`{"a":"${"[".repeat(500)}\\"${"{".repeat(500)}"}`), 3)).toBe(false);
  });
});

describe("topLevelId", () => {
  it("finds a top-level number or string id, even in truncated or too-deep text, and ignores nested ones", () => {
    expect(topLevelId(encode(`{"jsonrpc":"2.0","id":7,"params":${"[".repeat(9000)}`))).toBe(7);
    expect(topLevelId(encode(`{"params":{"id":3},"id":"abc"}`))).toBe("abc");
    expect(topLevelId(encode(`{"params":{"id":3}}`))).toBeNull();
    expect(topLevelId(encode(`{"id":{"x":1}}`))).toBeNull();
    expect(topLevelId(encode("not json"))).toBeNull();
  });
});
