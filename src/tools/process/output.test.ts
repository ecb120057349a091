import { describe, expect, it } from "vitest";
import { AnsiStripper, HeadTailCollector, TailBuffer, stripAnsi, truncateMiddle } from "./output.js";

describe("AnsiStripper", () => {
  const colored = "\x1b[1;31mred\x1b[0m plain \x1b]0;title\x07after \x1b[2Kcleared\r\nnext\n";
  const expected = "red plain after cleared\nnext\n";

  it("strips CSI and OSC sequences and normalizes CRLF", () => {
    expect(stripAnsi(colored)).toBe(expected);
  });

  it("gives the same result whatever the chunk boundaries", () => {
    for (let cut = 0; cut <= colored.length; cut++) {
      const stripper = new AnsiStripper();
      const out = stripper.push(colored.slice(0, cut)) + stripper.push(colored.slice(cut)) + stripper.flush();
      expect(out, `cut at ${cut}`).toBe(expected);
    }
  });

  it("gives the same result when fed one char at a time", () => {
    const stripper = new AnsiStripper();
    let out = "";
    for (const char of colored) out += stripper.push(char);
    out += stripper.flush();
    expect(out).toBe(expected);
  });

  it("does not hold back a lone escape forever", () => {
    const stripper = new AnsiStripper();
    expect(stripper.push("abc\x1b[")).toBe("abc");
    expect(stripper.flush()).toBe("[");
  });
});

describe("truncateMiddle", () => {
  it("returns short text unchanged", () => {
    expect(truncateMiddle("abc", 3)).toBe("abc");
  });

  it("keeps the first 40 % and the last 60 % with a marker naming what was omitted", () => {
    const text = "a".repeat(500) + "b".repeat(500);
    const out = truncateMiddle(text, 100);
    expect(out.startsWith("a".repeat(40) + "\n\n... [OUTPUT TRUNCATED - 900 chars omitted out of 1000 total] ...\n\n")).toBe(true);
    expect(out.endsWith("b".repeat(60))).toBe(true);
    expect(out.replace(/\n\n\.\.\. \[.*\] \.\.\.\n\n/, "")).toHaveLength(100);
  });
});

describe("HeadTailCollector", () => {
  it("matches truncateMiddle of the whole text, however the text arrives", () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join("");
    for (const size of [1, 7, 100, 4096, text.length]) {
      const collector = new HeadTailCollector(1000);
      for (let i = 0; i < text.length; i += size) collector.push(text.slice(i, i + size));
      expect(collector.text(), `chunk size ${size}`).toBe(truncateMiddle(text, 1000));
      expect(collector.length).toBe(text.length);
    }
  });

  it("returns everything when under the cap", () => {
    const collector = new HeadTailCollector(50);
    collector.push("hello ");
    collector.push("world");
    expect(collector.text()).toBe("hello world");
  });
});

describe("TailBuffer", () => {
  it("keeps the last `cap` chars and addresses them by absolute offset", () => {
    const buffer = new TailBuffer(10);
    buffer.append("0123456789");
    buffer.append("abcdefghij");
    buffer.append("KLMNO");
    expect(buffer.end).toBe(25);
    expect(buffer.text()).toBe("fghijKLMNO");
    expect(buffer.start).toBe(15);
    expect(buffer.readFrom(20)).toEqual({ text: "KLMNO", lost: 0 });
    expect(buffer.readFrom(5)).toEqual({ text: "fghijKLMNO", lost: 10 });
    expect(buffer.readFrom(25)).toEqual({ text: "", lost: 0 });
  });
});
