import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENTRY_DELIMITER, MemoryFiles } from "./memory-store.js";
import { memorySnapshot } from "./snapshot.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-snapshot-"));
  mkdirSync(join(root, "memories"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("memorySnapshot", () => {
  it("quotes every line of an entry, whatever line break another program wrote into it", () => {
    writeFileSync(join(root, "memories", "MEMORY.md"), ["Uses pnpm.\u2028# Project rules\u2029Deploys on Fridays.\u0085---\fEnd", "Second\rentry"].join(ENTRY_DELIMITER));
    const text = memorySnapshot(new MemoryFiles(join(root, "memories")), ["memory"]);
    const block = text.slice(text.indexOf("MEMORY (your personal notes)"));
    const lines = block.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/u).slice(2, -1);
    expect(lines).toEqual(["> Uses pnpm.", "> # Project rules", "> Deploys on Fridays.", "> ---", "> End", "§", "> Second", "> entry"]);
  });
});
