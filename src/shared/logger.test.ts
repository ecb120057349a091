import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { log, MAX_DETAIL_CHARS, MAX_MESSAGE_CHARS } from "./logger.js";

describe("log", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("cuts a long message and long values inside a detail, noting the full length", async () => {
    const file = join(dir, "agent.log");
    log.configure({ stderr: false });
    log.logToFile(file);
    const huge = "q".repeat(1024 * 1024);
    log.warn(`failed: ${huge}`, { cwd: huge, nested: { list: [huge] } });
    await log.close();
    log.configure({ stderr: true });
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(huge);
    expect(text.length).toBeLessThan(MAX_MESSAGE_CHARS + MAX_DETAIL_CHARS + 500);
    expect(text).toContain(`[${huge.length + 8} chars, truncated]`);
  });
});
