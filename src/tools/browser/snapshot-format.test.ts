import { describe, expect, it } from "vitest";
import { parseRef, refSelector } from "./refs.js";
import { formatSnapshot, truncateSnapshot } from "./snapshot-format.js";

describe("formatSnapshot", () => {
  const tree = [
    { role: "heading", name: "Example Domain", ref: "e1", level: 1 },
    { role: "paragraph", children: ["This domain is for use in examples."] },
    { role: "textbox", name: "Email", ref: "e2", value: "ada@example.com", required: true },
    { role: "checkbox", name: "Remember me", ref: "e3", checked: true },
    {
      role: "list",
      children: [{ role: "listitem", children: [{ role: "link", name: "More information", ref: "e4", url: "https://example.com/more" }] }],
    },
    { role: "combobox", name: "Country", ref: "e5", value: "France", children: [{ role: "option", name: "France", selected: true }, { role: "option", name: "Spain" }] },
    "Loose text",
  ];

  it("prints the ARIA-snapshot shape with [ref=eN] and states", () => {
    expect(formatSnapshot(tree, { full: false }).split("\n")).toEqual([
      '- heading "Example Domain" [ref=e1] [level=1]',
      "- paragraph: This domain is for use in examples.",
      '- textbox "Email" [ref=e2] [required]: ada@example.com',
      '- checkbox "Remember me" [ref=e3] [checked]',
      "- list:",
      "  - listitem:",
      '    - link "More information" [ref=e4]',
      '- combobox "Country" [ref=e5] [value="France"]:',
      '  - option "France" [selected]',
      '  - option "Spain"',
      "- text: Loose text",
    ]);
  });

  it("shows link URLs only in full mode", () => {
    const full = formatSnapshot(tree, { full: true });
    expect(full).toContain('    - link "More information" [ref=e4]:\n      - /url: https://example.com/more');
    expect(formatSnapshot(tree, { full: false })).not.toContain("/url:");
  });

  it("cuts long text and names in compact mode, not in full mode", () => {
    const long = "word ".repeat(100).trim();
    expect(formatSnapshot([{ role: "paragraph", children: [long] }], { full: false })).toMatch(/^- paragraph: (word ){19}word…$/);
    expect(formatSnapshot([{ role: "paragraph", children: [long] }], { full: true })).toBe(`- paragraph: ${long}`);
  });

  it("drops empty structure in compact mode and keeps it in full mode", () => {
    const empty = [{ role: "list", children: [{ role: "listitem" }] }, { role: "img" }];
    expect(formatSnapshot(empty, { full: false })).toBe("");
    expect(formatSnapshot(empty, { full: true })).toBe("- list:\n  - listitem\n- img");
  });

  it("skips what is not the expected shape and escapes names", () => {
    const hostile = [null, 7, { role: "" }, { name: "no role" }, { role: "button<script>", name: 'Say "hi"\nnow', ref: "x1" }, { role: "list", children: "nope" }];
    expect(formatSnapshot(hostile, { full: false })).toBe('- buttonscript "Say \\"hi\\" now"');
    expect(formatSnapshot("not a list", { full: false })).toBe("");
  });
});

describe("truncateSnapshot", () => {
  const text = Array.from({ length: 400 }, (_, i) => `- text: line ${i} ${"x".repeat(40)}`).join("\n");

  it("leaves short snapshots alone", () => {
    expect(truncateSnapshot("- button [ref=e1]", 100)).toEqual({ text: "- button [ref=e1]", truncated: false });
  });

  it("cuts at a line boundary with Hermes' note pointing at the stored file", () => {
    const cut = truncateSnapshot(text, 5000, "/home/.hermes/cache/web/browser-snapshot-abc.txt");
    expect(cut.truncated).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(5000);
    const lines = cut.text.split("\n");
    const kept = lines.filter((line) => line.startsWith("- text: line")).length;
    expect(lines.at(-1)).toBe(`[... ${400 - kept} more lines truncated — full snapshot: read_file path="/home/.hermes/cache/web/browser-snapshot-abc.txt" offset=${kept + 1} limit=200]`);
    expect(lines.slice(0, kept).every((line) => /^- text: line \d+ x{40}$/.test(line))).toBe(true);
  });

  it("points at browser_snapshot when nothing was stored", () => {
    expect(truncateSnapshot(text, 2000).text).toMatch(/more lines truncated, use browser_snapshot for full content\]$/);
  });
});

describe("parseRef", () => {
  it("accepts the spellings models use", () => {
    for (const input of ["@e3", "e3", "E3", " @e3 ", "ref=e3", "[ref=e3]", "3", "[3]", "@3"]) expect(parseRef(input), input).toBe("e3");
    expect(parseRef("@e012")).toBe("e12");
  });

  it("refuses anything else", () => {
    for (const input of ["", "@", "button", "e3e", "#e3", "@e3]", 'e3"] , [x', "e1234567"]) expect(parseRef(input), input).toBeUndefined();
  });

  it("selects by the data attribute", () => {
    expect(refSelector("e3")).toBe('[data-hermes-ref="e3"]');
  });
});
