import { describe, expect, it } from "vitest";
import { ThinkTagSplitter, type ContentSegment } from "./think-tags.js";

/** Feeds `chunks` through one splitter; returns the joined text and reasoning and the raw segments. */
function split(chunks: string[]): { text: string; reasoning: string; segments: ContentSegment[] } {
  const splitter = new ThinkTagSplitter();
  const segments = [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.finish()];
  const join = (kind: ContentSegment["kind"]): string =>
    segments.filter((segment) => segment.kind === kind).map((segment) => segment.text).join("");
  return { text: join("text"), reasoning: join("reasoning"), segments };
}

const SAMPLE = "Before <think>inner thoughts</think>\n\nAfter <thinking>more < less</thinking> end";
const EXPECTED = { text: "Before After end", reasoning: "inner thoughts" + "more < less" };

describe("ThinkTagSplitter", () => {
  it("routes every tag kind to reasoning and drops whitespace right after a closing tag", () => {
    expect(split([SAMPLE])).toMatchObject(EXPECTED);
    expect(split(["<reasoning>r</reasoning>A"])).toMatchObject({ text: "A", reasoning: "r" });
    expect(split(["<REASONING_SCRATCHPAD>s</REASONING_SCRATCHPAD> B"])).toMatchObject({ text: "B", reasoning: "s" });
    expect(split(["<THINK>x</Think>y"])).toMatchObject({ text: "y", reasoning: "x" });
  });

  it("gives the same result for every split into two chunks", () => {
    for (let i = 0; i <= SAMPLE.length; i++) {
      expect(split([SAMPLE.slice(0, i), SAMPLE.slice(i)]), `split at ${i}`).toMatchObject(EXPECTED);
    }
  });

  it("gives the same result for every split into three chunks", () => {
    for (let i = 0; i <= SAMPLE.length; i++) {
      for (let j = i; j <= SAMPLE.length; j++) {
        const result = split([SAMPLE.slice(0, i), SAMPLE.slice(i, j), SAMPLE.slice(j)]);
        expect(result, `split at ${i}, ${j}`).toMatchObject(EXPECTED);
      }
    }
  });

  it("gives the same result one character at a time", () => {
    expect(split([...SAMPLE])).toMatchObject(EXPECTED);
  });

  it("never lets a tag or a piece of one into the visible text", () => {
    for (let i = 0; i <= SAMPLE.length; i++) {
      const { segments } = split([SAMPLE.slice(0, i), SAMPLE.slice(i)]);
      for (const segment of segments.filter((s) => s.kind === "text")) expect(segment.text).not.toMatch(/<\/?think/i);
    }
  });

  it("holds back only what could still be a tag", () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push("a < b and <th")).toEqual([{ kind: "text", text: "a < b and " }]);
    expect(splitter.push("e end")).toEqual([{ kind: "text", text: "<the end" }]);
    expect(splitter.push("x <")).toEqual([{ kind: "text", text: "x " }]);
    expect(splitter.finish()).toEqual([{ kind: "text", text: "<" }]);
  });

  it("keeps near-miss tags as text", () => {
    expect(split(["<thin>not a tag</thin> <think-tank> <b>bold</b>"])).toMatchObject({
      text: "<thin>not a tag</thin> <think-tank> <b>bold</b>",
      reasoning: "",
    });
  });

  it("counts an unclosed block as reasoning, to the end", () => {
    expect(split(["<think>still going", " and </thi"])).toMatchObject({ text: "", reasoning: "still going and </thi" });
  });

  it("only the matching closing tag ends a block", () => {
    expect(split(["<thinking>a</think>b</thinking>c"])).toMatchObject({ text: "c", reasoning: "a</think>b" });
  });

  it("merges adjacent pieces of one kind and never returns empty segments", () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push("<think></think>")).toEqual([]);
    expect(splitter.push("   ")).toEqual([]);
    expect(splitter.push(" hi")).toEqual([{ kind: "text", text: "hi" }]);
    expect(splitter.finish()).toEqual([]);
  });

  it("is ready for a new answer after finish", () => {
    const splitter = new ThinkTagSplitter();
    splitter.push("<think>open");
    splitter.finish();
    expect(splitter.push("plain")).toEqual([{ kind: "text", text: "plain" }]);
  });
});
