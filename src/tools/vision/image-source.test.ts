import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../config/schema.js";
import { MAX_IMAGE_BYTES, classifySource, decodeDataPayload, downloadImage, readImageFile, sourceLabel } from "./image-source.js";

const PNG_1X1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const signal = new AbortController().signal;

const root = mkdtempSync(join(tmpdir(), "vision-source-"));
const home = join(root, "home");
const workspace = join(root, "workspace");
mkdirSync(join(home, "profiles", "work"), { recursive: true });
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("classifySource", () => {
  it("tells URLs, data: URLs, file:// URIs and paths apart without reading anything", () => {
    expect(classifySource(" https://example.com/a.png ", workspace)).toEqual({ kind: "url", url: "https://example.com/a.png" });
    expect(classifySource("data:image/PNG;base64,AAAA", workspace)).toEqual({ kind: "data", mediaType: "image/png", payload: "AAAA" });
    expect(classifySource("file:///tmp/shot.png", workspace)).toEqual({ kind: "file", path: "/tmp/shot.png" });
    expect(classifySource("shots/a.png", workspace)).toEqual({ kind: "file", path: join(workspace, "shots", "a.png") });
    expect(classifySource("../outside.png", workspace)).toEqual({ kind: "file", path: join(root, "outside.png") });
    expect(classifySource("~/a.png", workspace)).toEqual({ kind: "file", path: join(homedir(), "a.png") });
    // A bare name with a dot is a file here, never a host.
    expect(classifySource("photo.png", workspace)).toEqual({ kind: "file", path: join(workspace, "photo.png") });
  });

  it("refuses empty values, data: URLs that are not base64 and other schemes", () => {
    expect(() => classifySource("  ", workspace)).toThrow("image_url is required");
    expect(() => classifySource("data:image/svg+xml,<svg/>", workspace)).toThrow(/must be base64-encoded/);
    expect(() => classifySource("ftp://example.com/a.png", workspace)).toThrow(/Unrecognized image source scheme/);
    expect(() => classifySource("s3://bucket/a.png", workspace)).toThrow(/Unrecognized image source scheme/);
  });
});

describe("decodeDataPayload", () => {
  it("decodes base64 (whitespace and the URL-safe alphabet allowed)", () => {
    const text = PNG_1X1.toString("base64");
    expect(decodeDataPayload(text).equals(PNG_1X1)).toBe(true);
    expect(decodeDataPayload(`${text.slice(0, 20)}\n ${text.slice(20)}`).equals(PNG_1X1)).toBe(true);
    expect(decodeDataPayload(PNG_1X1.toString("base64url")).equals(PNG_1X1)).toBe(true);
  });

  it("refuses what is not base64, empty payloads and payloads over the size cap", () => {
    expect(() => decodeDataPayload("not*base64!")).toThrow("The data: URL is not valid base64.");
    expect(() => decodeDataPayload("")).toThrow("The data: URL is empty.");
    expect(() => decodeDataPayload("A".repeat(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 8))).toThrow(/larger than 20 MB/);
  });
});

describe("readImageFile", () => {
  it("reads an image file", async () => {
    const file = join(workspace, "dot.png");
    writeFileSync(file, PNG_1X1);
    expect((await readImageFile(file, home, signal)).equals(PNG_1X1)).toBe(true);
  });

  it("refuses HERMES_HOME credential files, links to them, and process environments", async () => {
    writeFileSync(join(home, ".env"), "OPENAI_API_KEY=sk-secret\n");
    writeFileSync(join(home, "profiles", "work", "auth.json"), "{}");
    symlinkSync(join(home, ".env"), join(workspace, "innocent.png"));
    linkSync(join(home, ".env"), join(workspace, "hardlink.png"));
    await expect(readImageFile(join(home, ".env"), home, signal)).rejects.toThrow(/Refused to read .*holds Hermes credentials/);
    await expect(readImageFile(join(home, "profiles", "work", "auth.json"), home, signal)).rejects.toThrow(/holds Hermes credentials/);
    await expect(readImageFile(join(workspace, "innocent.png"), home, signal)).rejects.toThrow(/holds Hermes credentials/);
    await expect(readImageFile(join(workspace, "hardlink.png"), home, signal)).rejects.toThrow(/same file as a credential file/);
    await expect(readImageFile("/proc/self/environ", home, signal)).rejects.toThrow(/process environment/);
    // A path that climbs out of the workspace into HERMES_HOME is resolved first, then refused.
    await expect(readImageFile(classifySourcePath(`../home/.env`), home, signal)).rejects.toThrow(/holds Hermes credentials/);
  });

  it("refuses devices, folders, missing, empty and oversized files", async () => {
    await expect(readImageFile("/dev/zero", home, signal)).rejects.toThrow(/device and process file-descriptor paths/);
    await expect(readImageFile(workspace, home, signal)).rejects.toThrow(/is a directory/);
    await expect(readImageFile(join(workspace, "missing.png"), home, signal)).rejects.toThrow(/Image file not found/);
    writeFileSync(join(workspace, "empty.png"), "");
    await expect(readImageFile(join(workspace, "empty.png"), home, signal)).rejects.toThrow(/is empty/);
    const big = join(workspace, "big.png");
    writeFileSync(big, "");
    truncateSync(big, MAX_IMAGE_BYTES + 1);
    await expect(readImageFile(big, home, signal)).rejects.toThrow(/larger than 20 MB/);
  });
});

function classifySourcePath(raw: string): string {
  const source = classifySource(raw, workspace);
  if (source.kind !== "file") throw new Error("expected a file");
  return source.path;
}

describe("downloadImage", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === "/dot.png") {
        response.writeHead(200, { "content-type": "image/png" });
        response.end(PNG_1X1);
      } else if (request.url === "/moved") {
        response.writeHead(302, { location: "/dot.png" });
        response.end();
      } else if (request.url === "/page") {
        response.writeHead(200, { "content-type": "text/html" });
        response.end("<html></html>");
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const allowPrivate = configSchema.parse({ web: { allow_private_urls: true } });

  it("fetches an image under the URL policy, following redirects", async () => {
    expect((await downloadImage(`${base}/dot.png`, allowPrivate, { signal, timeoutMs: 5_000 })).equals(PNG_1X1)).toBe(true);
    expect((await downloadImage(`${base}/moved`, allowPrivate, { signal, timeoutMs: 5_000 })).equals(PNG_1X1)).toBe(true);
  });

  it("refuses private addresses by default, blocked domains, HTTP errors and pages", async () => {
    await expect(downloadImage(`${base}/dot.png`, configSchema.parse({}), { signal, timeoutMs: 5_000 })).rejects.toThrow(/private or internal network address/);
    const blocked = configSchema.parse({ web: { blocked_domains: ["images.example"] } });
    const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    await expect(downloadImage("http://cdn.images.example/a.png", blocked, { signal, timeoutMs: 5_000, resolve })).rejects.toThrow(/Blocked by website policy/);
    await expect(downloadImage(`${base}/nothing.png`, allowPrivate, { signal, timeoutMs: 5_000 })).rejects.toThrow(/HTTP 404/);
    await expect(downloadImage(`${base}/page`, allowPrivate, { signal, timeoutMs: 5_000 })).rejects.toThrow(/is not an image \(the server sent text\/html\)/);
    await expect(downloadImage("http://169.254.169.254/latest/meta-data", allowPrivate, { signal, timeoutMs: 5_000 })).rejects.toThrow(/cloud metadata/);
  });
});

describe("sourceLabel", () => {
  it("names the file, the host and path, or the data: type", () => {
    expect(sourceLabel("/home/u/shots/screen.png")).toBe("screen.png");
    expect(sourceLabel("file:///tmp/a b.jpg")).toBe("a b.jpg");
    expect(sourceLabel("https://example.com/img/cat.jpg?size=large")).toBe("example.com/img/cat.jpg");
    expect(sourceLabel("data:image/png;base64,AAAA")).toBe("data:image/png image");
  });
});
