import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/types.js";
import { INTERRUPTED_TOOL_RESULT, repairToolPairs } from "./history-repair.js";

const call = (id: string): ChatMessage => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "terminal", arguments: "{}" } }] });
const result = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, name: "terminal", content: "ok" });
const user = (text: string): ChatMessage => ({ role: "user", content: text });
const wrap = (messages: ChatMessage[]) => messages.map((message) => ({ message }));

describe("repairToolPairs", () => {
  it("leaves a valid history as it is", () => {
    const history = wrap([user("a"), call("c1"), result("c1"), { role: "assistant", content: "done" }]);
    expect(repairToolPairs(history)).toEqual(history);
  });

  it("gives calls that never finished an interrupted error result, before what follows", () => {
    const repaired = repairToolPairs(wrap([user("a"), call("c1"), user("b")]));
    expect(repaired.map((entry) => entry.message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(repaired[2]).toEqual({
      message: { role: "tool", tool_call_id: "c1", name: "terminal", content: INTERRUPTED_TOOL_RESULT },
      toolOutcome: { isError: true },
    });
    expect(repairToolPairs(wrap([user("a"), call("c2")])).at(-1)?.message).toMatchObject({ role: "tool", tool_call_id: "c2" });
  });

  it("drops results whose call is missing", () => {
    expect(repairToolPairs(wrap([user("a"), result("ghost"), { role: "assistant", content: "hi" }])).map((e) => e.message.role)).toEqual(["user", "assistant"]);
  });
});
