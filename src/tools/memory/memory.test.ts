import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import type { ToolContext } from "../types.js";
import { MAX_FAILURES_PER_TURN, memoryTool } from "./memory.js";

/** The `memory` tool's own rules over real files in a temp HERMES_HOME. */
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "hermes-memory-tool-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const run = async (args: Record<string, unknown>, ctx: ToolContext) => {
  const result = await memoryTool.execute(memoryTool.params.parse(args), ctx);
  return { ...result, json: JSON.parse(result.content as string) as Record<string, unknown> };
};

describe("memory tool", () => {
  it("tells the model to stop after repeated failures in one turn, and starts over the next turn", async () => {
    const turn = toolContext({ hermesHome: home });
    for (let i = 0; i < MAX_FAILURES_PER_TURN; i++) {
      expect((await run({ action: "remove", old_text: "nothing like this" }, turn)).json).toMatchObject({ success: false, error: expect.stringMatching(/no entry matched/) });
    }
    expect((await run({ action: "remove", old_text: "nothing like this" }, turn)).json).toMatchObject({ success: false, done: true, error: expect.stringMatching(/Stop retrying/) });
    const next = toolContext({ hermesHome: home });
    expect((await run({ action: "add", content: "A stable fact." }, next)).json).toMatchObject({ success: true, entry_count: 1 });
  });

  it("refuses a target turned off in config.yaml", async () => {
    const ctx = toolContext({ hermesHome: home });
    const off = { ...ctx, config: { ...ctx.config, memory: { ...ctx.config.memory, user_profile_enabled: false } } };
    expect((await run({ target: "user", action: "add", content: "x" }, off)).isError).toBe(true);
  });
});
