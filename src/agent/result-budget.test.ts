/**
 * Tool results too large for the model, through the loop and the real spill folder: a 300,000-char
 * result reaches the model as head + tail + path while the file holds all of it and the editor sees
 * all of it; several 80,000-char results of one message that pass the per-batch cap spill largest first.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import { testTurn } from "../../test/support/agent-turn.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { toolContext } from "../../test/support/tool-context.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import type { AgentEvent } from "./events.js";
import { runTurn } from "./loop.js";
import { DEFAULT_TOOL_RESULT_LIMITS, ResultBudget, spillPreview, toolResultLimitsFor } from "./result-budget.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

/** Numbered lines, `chars` long in all; first line `HEAD-<tag>`, last line `TAIL-<tag>`. */
function bigText(tag: string, chars: number): string {
  const head = `HEAD-${tag}\n`;
  const tail = `TAIL-${tag}`;
  let body = "";
  for (let line = 1; body.length < chars - head.length - tail.length; line++) body += `line ${line} of ${tag}: ${"x".repeat(60)}\n`;
  return (head + body).slice(0, chars - tail.length) + tail;
}

const bigTool = defineTool({
  name: "big",
  description: "Returns `size` characters",
  kind: "read",
  mutating: false,
  params: z.object({ tag: z.string(), size: z.number() }),
  describe: (args) => ({ title: `big ${args.tag}`, locations: [] }),
  execute: async (args) => ({ content: bigText(args.tag, args.size) }),
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request JSON
const toolMessages = (n: number): any[] => (llm.requests[n]?.body.messages as { role: string }[]).filter((message) => message.role === "tool");
const toolEnds = (events: AgentEvent[]) => events.flatMap((event) => (event.type === "tool_end" ? [event] : []));
const spilledPath = (content: string): string => /saved in (\S+)\. /.exec(content)?.[1] ?? "";

describe("a tool result over the per-result cap", () => {
  it("reaches the model as head, tail and the file's path; the file holds the whole result; the editor sees it whole", async () => {
    const whole = bigText("one", 300_000);
    llm.push({ tool_calls: [{ id: "call_big", name: "big", arguments: { tag: "one", size: 300_000 } }] }, { text: "read it" });
    const context = toolContext({ cwd: "/tmp" });
    const { input, events, history } = testTurn(llm, { tools: new ToolRegistry([bigTool]), toolContext: context });
    expect((await runTurn(input)).stopReason).toBe("end_turn");

    const [sent] = toolMessages(1);
    const content = String(sent.content);
    expect(content.length).toBeLessThan(8_000);
    expect(content).toContain("HEAD-one");
    expect(content).toContain("TAIL-one");
    expect(content).toContain("300,000 characters");
    expect(content).toMatch(/read_file on that path \(offset and limit are line numbers; continue at offset \d+\), or search it with search_files/);
    const file = spilledPath(content);
    expect(file).toMatch(/big-call_big\.txt$/);
    expect(readFileSync(file, "utf8")).toBe(whole);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);

    expect(toolEnds(events)[0]?.content).toBe(whole); // the editor's view is unchanged
    expect(history.find((message) => message.role === "tool")).toMatchObject({ content }); // stored = what the model got

    await context.state.dispose(); // the session's temp area goes with it
    expect(existsSync(file)).toBe(false);
  });

  it("leaves results under the cap alone", async () => {
    llm.push({ tool_calls: [{ name: "big", arguments: { tag: "small", size: 90_000 } }] }, { text: "ok" });
    const { input } = testTurn(llm, { tools: new ToolRegistry([bigTool]) });
    await runTurn(input);
    expect(toolMessages(1)[0]?.content).toBe(bigText("small", 90_000));
  });
});

describe("the results of one message over the per-batch cap", () => {
  it("spills the largest first until the batch fits, keeping the others whole", async () => {
    const sizes = { a: 80_000, b: 85_000, c: 75_000 };
    llm.push(
      { tool_calls: Object.entries(sizes).map(([tag, size]) => ({ id: `call_${tag}`, name: "big", arguments: { tag, size } })) },
      { text: "done" },
    );
    const context = toolContext({ cwd: "/tmp" });
    const { input, events } = testTurn(llm, { tools: new ToolRegistry([bigTool]), toolContext: context });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    onTestFinished(() => context.state.dispose());
    const [a, b, c] = toolMessages(1).map((message) => String(message.content));
    expect(a).toBe(bigText("a", sizes.a));
    expect(c).toBe(bigText("c", sizes.c));
    expect(b).toContain("Tool result too large to send whole (85,000 characters");
    expect(readFileSync(spilledPath(b ?? ""), "utf8")).toBe(bigText("b", sizes.b));
    expect((a ?? "").length + (b ?? "").length + (c ?? "").length).toBeLessThanOrEqual(DEFAULT_TOOL_RESULT_LIMITS.perBatchChars);
    expect(toolEnds(events).map((event) => event.content.length)).toEqual([80_000, 85_000, 75_000]);
  });

  it("counts groups already delivered, spilling from the later group", async () => {
    const written: string[] = [];
    const budget = new ResultBudget({ perResultChars: 100_000, perBatchChars: 200_000 }, async (callId) => (written.push(callId), `/tmp/${callId}.txt`));
    const first = await budget.fit([{ callId: "one", name: "t", content: "x".repeat(90_000) }, { callId: "two", name: "t", content: "y".repeat(90_000) }]);
    expect(first.map((text) => text.length)).toEqual([90_000, 90_000]);
    const second = await budget.fit([{ callId: "three", name: "t", content: "z".repeat(50_000) }]);
    expect(written).toEqual(["three"]);
    expect(second[0]).toContain("saved in /tmp/three.txt");
  });

  it("still sends head and tail, saying the rest is lost, when the file cannot be written", async () => {
    const budget = new ResultBudget(DEFAULT_TOOL_RESULT_LIMITS, async () => {
      throw new Error("ENOSPC: no space left on device");
    });
    const [text] = await budget.fit([{ callId: "c", name: "t", content: bigText("lost", 150_000) }]);
    expect(text).toContain("saving it to a file failed (ENOSPC: no space left on device)");
    expect(text).toContain("HEAD-lost");
    expect(text).toContain("TAIL-lost");
  });
});

describe("limits and previews", () => {
  it("scales the caps down for small windows and keeps Hermes' numbers for large ones", () => {
    expect(toolResultLimitsFor(200_000)).toEqual(DEFAULT_TOOL_RESULT_LIMITS);
    expect(toolResultLimitsFor(8_192)).toEqual({ perResultChars: 8_192, perBatchChars: 16_384 });
    expect(toolResultLimitsFor(1_000)).toEqual({ perResultChars: 4_000, perBatchChars: 8_000 });
  });

  it("names the lines it shows and where to continue", () => {
    const text = Array.from({ length: 10_000 }, (_unused, index) => `row ${index + 1}`).join("\n");
    const preview = spillPreview(text, 100_000, { file: "/tmp/x.txt" });
    expect(preview).toMatch(/^\[Tool result too large to send whole \([\d,]+ characters, 10,000 lines\)\. The whole result is saved in \/tmp\/x\.txt\. /);
    expect(preview).toMatch(/Shown below: the first 3,000 characters \(lines 1-\d+\) and the last 2,000 \(from line [\d,]+\)\./);
    expect(preview.endsWith("row 10000")).toBe(true);
  });
});
