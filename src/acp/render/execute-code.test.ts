import { describe, expect, it } from "vitest";
import { toolEndEvent, toolProgressEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import type { ExecuteCodeDetails } from "../../tools/execute-code/details.js";
import { executeCodeTool } from "../../tools/execute-code/execute-code.js";
import { prepareToolCall, type PreparedToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import { toolEndUpdate, toolProgressUpdate, toolStartUpdate } from "../tool-render.js";

/** execute_code in the editor, rendered through the dispatcher. */
const TOOLS = new ToolRegistry([executeCodeTool]);
const CODE = "# Count TODOs\nfrom hermes_tools import read_file\nprint(3)";

const prepared = (code: string): PreparedToolCall => {
  const call: ToolCall = { id: "c1", type: "function", function: { name: "execute_code", arguments: JSON.stringify({ code }) } };
  return prepareToolCall(call, TOOLS, { cwd: "/w" });
};

const texts = (update: unknown): string[] =>
  ((update as { content: Array<{ content: { text: string } }> }).content ?? []).map((block) => block.content.text);

describe("execute_code rendering", () => {
  it("starts as an execute call titled by the script, showing the script as a Python block", () => {
    const start = toolStartUpdate(toolStartEvent(prepared(CODE))) as unknown as Record<string, unknown>;
    expect(start).toMatchObject({ kind: "execute", title: "execute_code: Count TODOs" });
    expect(texts(start)).toEqual([`\`\`\`python\n${CODE}\n\`\`\``]);
  });

  it("lists the inner calls while it runs", () => {
    const update = toolProgressUpdate(
      toolProgressEvent(prepared(CODE), {
        running: true,
        calls: [
          { tool: "read_file", summary: "read_file src/a.ts", status: "ok" },
          { tool: "read_file", summary: "read_file src/b.ts", status: "running" },
        ],
      }),
    );
    expect(texts(update)).toEqual([`\`\`\`python\n${CODE}\n\`\`\``, "✓ read_file src/a.ts\n… read_file src/b.ts"]);
  });

  it("ends with the calls, the output and the exit code; failed unless the script succeeded", () => {
    const details: ExecuteCodeDetails = {
      status: "success",
      exitCode: 0,
      output: "3",
      calls: [{ tool: "read_file", summary: "read_file src/a.ts", status: "error" }],
      toolCallsMade: 1,
      sandbox: "workspace-write",
    };
    const done = toolEndUpdate(toolEndEvent(prepared(CODE), { content: "{}", isError: false, details })) as unknown as Record<string, unknown>;
    expect(done).toMatchObject({ status: "completed" });
    expect(texts(done).slice(1)).toEqual(["✗ read_file src/a.ts", "```\n3\n```\nExit code: 0 · 1 tool call"]);

    const timedOut = toolEndUpdate(
      toolEndEvent(prepared(CODE), { content: "{}", isError: true, details: { ...details, status: "timeout", exitCode: 124, error: "Script timed out after 300s and was killed." } }),
    ) as unknown as Record<string, unknown>;
    expect(timedOut).toMatchObject({ status: "failed" });
    expect(texts(timedOut).at(-1)).toContain("Script timed out after 300s");

    const refused = toolEndUpdate(
      toolEndEvent(prepared(CODE), { content: "{}", isError: true, details: { ...details, status: "error", exitCode: -1, output: "", calls: [], error: "blocked: rm -rf /" } }),
    ) as unknown as Record<string, unknown>;
    expect(refused).toMatchObject({ status: "failed" });
    expect(texts(refused).at(-1)).toBe("blocked: rm -rf /");
  });
});
