import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContextLengthCache, contextLengthCacheFile, MAX_CACHE_FILE_BYTES } from "./context-length-cache.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "hermes-ctxlen-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("ContextLengthCache", () => {
  it("learns a window, keeps it in the file, and a new process reads it back", () => {
    const file = contextLengthCacheFile(home);
    new ContextLengthCache(file).learn("openai", "gpt-x", 8_192);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ openai: { "gpt-x": 8_192 } });
    expect(new ContextLengthCache(file).get("openai", "gpt-x")).toBe(8_192);
  });

  it("ignores windows no real model has (1 token, 10^12 tokens), learned or read from the file", () => {
    const file = contextLengthCacheFile(home);
    const cache = new ContextLengthCache(file);
    cache.learn("p", "tiny", 1);
    cache.learn("p", "huge", 1e12);
    expect([cache.get("p", "tiny"), cache.get("p", "huge")]).toEqual([undefined, undefined]);
    mkdirSync(join(home, "cache"), { recursive: true });
    writeFileSync(file, JSON.stringify({ p: { tiny: 1, huge: 1e12, ok: 32_768 } }));
    const read = new ContextLengthCache(file);
    expect([read.get("p", "tiny"), read.get("p", "huge"), read.get("p", "ok")]).toEqual([undefined, undefined, 32_768]);
  });

  it("ignores a file too large to be its own, and replaces it on the next write", () => {
    const file = contextLengthCacheFile(home);
    mkdirSync(join(home, "cache"), { recursive: true });
    writeFileSync(file, `{"p": {"m": 4096}, "pad": "${"x".repeat(MAX_CACHE_FILE_BYTES)}"}`);
    const cache = new ContextLengthCache(file);
    expect(cache.get("p", "m")).toBeUndefined();
    cache.learn("p", "n", 4_096);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ p: { n: 4_096 } });
  });

  it("keeps the window in memory and leaves no temp file behind when the file cannot be replaced", () => {
    const file = contextLengthCacheFile(home);
    // A non-empty directory where the file should be: the temp file is written, the rename fails.
    mkdirSync(join(file, "blocker"), { recursive: true });
    const cache = new ContextLengthCache(file);
    cache.learn("p", "m", 16_384);
    expect(cache.get("p", "m")).toBe(16_384);
    expect(readdirSync(join(home, "cache")).sort()).toEqual(["context_lengths.json"]);
  });
});
