import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../tools/registry.js";
import { terminalTool } from "../tools/terminal/terminal.js";
import { replayUpdates } from "./replay.js";

describe("replayUpdates", () => {
  it("shows a command that ran in the editor's (since released) terminal as its stored output", () => {
    const updates = replayUpdates(
      [
        { message: { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "terminal", arguments: '{"command":"make"}' } }] } },
        {
          message: { role: "tool", tool_call_id: "t1", content: '{"output":"built","exit_code":0}' },
          toolOutcome: { isError: false, details: { command: "make", cwd: "/w", exitCode: 0, output: "built", terminalId: "term-gone" } },
        },
      ],
      new ToolRegistry([terminalTool]),
      "/w",
    );
    const end = updates.at(-1);
    expect(JSON.stringify(end)).not.toContain("term-gone");
    expect(JSON.stringify(end)).toContain("built");
    expect(end).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
  });
});
