import { describe, expect, it } from "vitest";
import { decodeText, detectFormat, encodeText, toBody } from "./text-format.js";

describe("text format", () => {
  it("detects BOM and the dominant line ending", () => {
    expect(detectFormat("a\r\nb\r\nc\n")).toEqual({ bom: false, eol: "\r\n" });
    expect(detectFormat("a\nb\r\nc\n")).toEqual({ bom: false, eol: "\n" });
    expect(detectFormat("\uFEFFone line")).toEqual({ bom: true, eol: "\n" });
    expect(detectFormat("")).toEqual({ bom: false, eol: "\n" });
  });

  it("round-trips through body text", () => {
    for (const text of ["\uFEFFa\r\nb\r\n", "a\nb", "x\r\ny", ""]) {
      const { body, format } = decodeText(text);
      expect(body).not.toContain("\r\n");
      expect(encodeText(body, format)).toBe(text);
    }
  });

  it("converts new text to the file's conventions without doubling a BOM", () => {
    expect(encodeText("a\nb\r\nc", { bom: true, eol: "\r\n" })).toBe("\uFEFFa\r\nb\r\nc");
    expect(encodeText("\uFEFFa\n", { bom: true, eol: "\n" })).toBe("\uFEFFa\n");
    expect(encodeText("\uFEFFa\r\n", { bom: false, eol: "\n" })).toBe("a\n");
    expect(toBody("a\rb\r\n")).toBe("a\rb\n");
  });
});
