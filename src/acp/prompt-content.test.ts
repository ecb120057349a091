import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIO_IGNORED_NOTE, MAX_RESOURCE_BYTES, promptContent, promptText } from "./prompt-content.js";
import { decodeText, displayName, isTextMime, localPath, NON_FILE_LINK_NOTE } from "./prompt-resources.js";

let dir: string;
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "prompt-content-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const link = (path: string, extra: Partial<Extract<ContentBlock, { type: "resource_link" }>> = {}): ContentBlock => ({
  type: "resource_link",
  uri: pathToFileURL(path).href,
  name: extra.name ?? "",
  ...extra,
});

function onlyText(content: string | unknown[]): string {
  expect(typeof content).toBe("string");
  return content as string;
}

describe("promptContent", () => {
  it("keeps a text-only prompt a plain string", async () => {
    const result = await promptContent([
      { type: "text", text: "first" },
      { type: "text", text: "" },
      { type: "text", text: "second" },
    ]);
    expect(result).toEqual({ text: "first\nsecond", content: "first\nsecond", textOnly: true, empty: false });
  });

  it("is empty for no blocks or blank text, and the user text leaves attachments out", async () => {
    expect((await promptContent([])).empty).toBe(true);
    expect((await promptContent([{ type: "text", text: "" }])).empty).toBe(true);
    const path = file("note.md", "# Note\n");
    const result = await promptContent([{ type: "text", text: "read this" }, link(path)]);
    expect(result.text).toBe("read this");
    expect(promptText([{ type: "text", text: " hi " }, link(path)])).toBe("hi");
    expect(result.textOnly).toBe(false);
  });

  it("turns an image block into a data URL part (mime default image/png; data: passes through)", async () => {
    const data = PNG.toString("base64");
    const result = await promptContent([
      { type: "text", text: "what is this?" },
      { type: "image", data, mimeType: "image/jpeg" },
      { type: "image", data: `data:image/gif;base64,${data}`, mimeType: "" },
      { type: "image", data, mimeType: "" },
    ]);
    expect(result.content).toEqual([
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${data}` } },
      { type: "image_url", image_url: { url: `data:image/gif;base64,${data}` } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
    ]);
    expect(result.empty).toBe(false);
  });

  it("uses an image block's http uri when it has no data, reads a file uri, and drops one with neither", async () => {
    const path = file("pic.png", PNG);
    const result = await promptContent([
      { type: "image", data: "", mimeType: "image/png", uri: "https://example.com/cat.png" },
      { type: "image", data: "", mimeType: "image/png", uri: pathToFileURL(path).href },
      { type: "image", data: "", mimeType: "image/png" },
    ]);
    expect(result.content).toEqual([
      { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
      { type: "text", text: `[Attached image: pic.png]\nURI: ${pathToFileURL(path).href}` },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
  });

  it("notes images instead of sending them to a model without vision", async () => {
    const result = await promptContent([{ type: "image", data: PNG.toString("base64"), mimeType: "image/png" }], { images: false });
    expect(onlyText(result.content)).toContain("does not accept images");
  });

  it("inlines a linked text file with its display name and URI", async () => {
    const path = file("app.ts", "export const answer = 42;\n");
    const uri = pathToFileURL(path).href;
    const result = await promptContent([{ type: "text", text: "explain" }, link(path, { name: "app.ts", title: "Main" })]);
    expect(result.content).toBe(`explain\n[Attached file: Main (app.ts)]\nURI: ${uri}\n\nexport const answer = 42;`);
  });

  it("cuts a linked file at 512 KiB with the truncation note", async () => {
    const size = MAX_RESOURCE_BYTES + 1000;
    const path = file("big.log", "a".repeat(size));
    const text = onlyText((await promptContent([link(path, { name: "big.log" })])).content);
    expect(text.startsWith(`[Attached file: big.log] (truncated to 524288 of ${size} bytes)\nURI: `)).toBe(true);
    expect(text.endsWith("a".repeat(100))).toBe(true);
    expect(text.length).toBeLessThan(MAX_RESOURCE_BYTES + 500);
  });

  it("describes a binary file instead of inlining it, but inlines NUL text when the mime says text", async () => {
    const path = file("blob.bin", Buffer.from([0, 1, 2, 3, 0, 255]));
    expect(onlyText((await promptContent([link(path)])).content)).toBe("[Binary file omitted: 6 bytes, mime=application/octet-stream]");
    expect(onlyText((await promptContent([link(path, { mimeType: "application/zip" })])).content)).toBe("[Binary file omitted: 6 bytes, mime=application/zip]");
    const pdf = file("paper.pdf", "%PDF-1.7 no nul bytes here");
    expect(onlyText((await promptContent([link(pdf, { mimeType: "application/pdf" })])).content)).toBe("[Binary file omitted: 26 bytes, mime=application/pdf]");
    const textual = file("data.json", Buffer.from('{"a":"\u0000"}'));
    expect(onlyText((await promptContent([link(textual, { mimeType: "application/json" })])).content)).toContain('{"a":"\u0000"}');
  });

  it("inlines a linked image as a part, and refuses one over 512 KiB", async () => {
    const path = file("shot.png", PNG);
    const uri = pathToFileURL(path).href;
    expect((await promptContent([link(path, { name: "shot.png" })])).content).toEqual([
      { type: "text", text: `[Attached image: shot.png]\nURI: ${uri}` },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
    const big = file("big.jpg", Buffer.alloc(MAX_RESOURCE_BYTES + 1, 1));
    expect(onlyText((await promptContent([link(big)])).content)).toBe(`[Image too large to inline: ${MAX_RESOURCE_BYTES + 1} bytes, cap=524288]`);
  });

  it("recognises an image by its declared mime type whatever its suffix", async () => {
    const path = file("screenshot", PNG);
    const content = (await promptContent([link(path, { mimeType: "image/png" })])).content as unknown[];
    expect(content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } });
  });

  it("notes files that cannot be read and links it cannot follow", async () => {
    const missing = join(dir, "missing.txt");
    expect(onlyText((await promptContent([link(missing)])).content)).toMatch(/^\[Could not read attached file: .*ENOENT/);
    expect(onlyText((await promptContent([link(join(dir, "missing.png"))])).content)).toMatch(/^\[Could not read attached image: /);
    const folder = join(dir, "folder");
    mkdirSync(folder, { recursive: true });
    expect(onlyText((await promptContent([link(folder)])).content)).toMatch(/^\[Could not read attached file: .*is a directory/);
    for (const uri of ["https://example.com/a.ts", "zed://buffer/3", "file://otherhost/etc/passwd"]) {
      const text = onlyText((await promptContent([{ type: "resource_link", uri, name: "x" }])).content);
      expect(text).toBe(`${NON_FILE_LINK_NOTE}\nURI: ${uri}`);
    }
  });

  it("reads bare paths (relative ones against the session cwd) and file://localhost", async () => {
    file("rel.txt", "relative body");
    expect(onlyText((await promptContent([{ type: "resource_link", uri: "rel.txt", name: "rel.txt" }], { cwd: dir })).content)).toContain("relative body");
    const abs = file("abs.txt", "absolute body");
    expect(onlyText((await promptContent([{ type: "resource_link", uri: abs, name: "abs.txt" }])).content)).toContain("absolute body");
    const localhost = `file://localhost${abs}`;
    expect(onlyText((await promptContent([{ type: "resource_link", uri: localhost, name: "abs.txt" }])).content)).toContain("absolute body");
  });

  it("inlines embedded text resources, capping them at 512 KiB", async () => {
    const small = await promptContent([{ type: "resource", resource: { uri: "file:///p/notes.md", text: "remember this" } }]);
    expect(small.content).toBe("[Attached file: notes.md]\nURI: file:///p/notes.md\n\nremember this");
    const size = MAX_RESOURCE_BYTES + 10;
    const big = onlyText((await promptContent([{ type: "resource", resource: { uri: "file:///p/big.txt", text: "b".repeat(size) } }])).content);
    expect(big.endsWith(`\n\n[Truncated to 524288 of ${size} bytes]`)).toBe(true);
  });

  it("handles embedded blobs: images as parts, text decoded, binaries described", async () => {
    const image = await promptContent([{ type: "resource", resource: { uri: "file:///p/logo.png", blob: PNG.toString("base64"), mimeType: "image/png" } }]);
    expect(image.content).toEqual([
      { type: "text", text: "[Attached image: logo.png]\nURI: file:///p/logo.png" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
    const bigImage = Buffer.alloc(MAX_RESOURCE_BYTES + 1).toString("base64");
    expect(onlyText((await promptContent([{ type: "resource", resource: { uri: "file:///p/x.png", blob: bigImage } }])).content)).toBe(
      `[Embedded image too large to inline: ${MAX_RESOURCE_BYTES + 1} bytes, cap=524288]`,
    );
    const textBlob = Buffer.from("plain words", "utf8").toString("base64");
    expect(onlyText((await promptContent([{ type: "resource", resource: { uri: "file:///p/a.txt", blob: textBlob } }])).content)).toBe(
      "[Attached file: a.txt]\nURI: file:///p/a.txt\n\nplain words",
    );
    const binary = Buffer.from([0, 159, 146, 150]).toString("base64");
    expect(onlyText((await promptContent([{ type: "resource", resource: { uri: "file:///p/a.bin", blob: binary, mimeType: "application/x-thing" } }])).content)).toBe(
      "[Binary embedded file omitted: 4 bytes, mime=application/x-thing]",
    );
  });

  it("ignores audio with a note", async () => {
    const result = await promptContent([{ type: "text", text: "listen" }, { type: "audio", data: "AAAA", mimeType: "audio/wav" }]);
    expect(result.content).toBe(`listen\n${AUDIO_IGNORED_NOTE}`);
  });
});

describe("attachment helpers", () => {
  it("decodes UTF-8 (dropping a BOM and a character cut at the end), else latin-1", () => {
    expect(decodeText(Buffer.from("\ufeffhé", "utf8"), false)).toBe("hé");
    const cut = Buffer.from("aé", "utf8").subarray(0, 2);
    expect(decodeText(cut, true)).toBe("a");
    expect(decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9]), false)).toBe("café");
  });

  it("knows text mime types", () => {
    for (const mime of ["text/plain", "text/x-rust", "application/json", "application/typescript", "application/x-yaml", "application/toml", "application/sql"]) {
      expect(isTextMime(mime)).toBe(true);
    }
    for (const mime of ["application/octet-stream", "image/png", undefined, "application/zip"]) expect(isTextMime(mime)).toBe(false);
  });

  it("names attachments like Hermes", () => {
    expect(displayName({ title: "T", name: "n" })).toBe("T (n)");
    expect(displayName({ title: "same", name: "same" })).toBe("same");
    expect(displayName({ name: "n" })).toBe("n");
    expect(displayName({ uri: "file:///a/b/c.txt" })).toBe("c.txt");
    expect(displayName({})).toBe("resource");
  });

  it("maps file URIs and Windows drives to local paths, and refuses other hosts and schemes", () => {
    expect(localPath("file:///tmp/a%20b.txt")).toBe("/tmp/a b.txt");
    expect(localPath("file:///C:/Users/me/x.ts")).toBe("/mnt/c/Users/me/x.ts");
    expect(localPath("D:\\work\\y.ts")).toBe("/mnt/d/work/y.ts");
    expect(localPath("file://server/share/x")).toBeUndefined();
    expect(localPath("untitled:Untitled-1")).toBeUndefined();
    expect(localPath("https://example.com")).toBeUndefined();
  });
});
