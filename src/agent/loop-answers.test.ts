/**
 * The loop with answers that need handling: truncation by the output cap, broken or repeated tool
 * calls, empty answers after tools, inline reasoning, and the stop reasons they lead to.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shownReasoning, shownText, testTurn } from "../../test/support/agent-turn.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import type { ChatMessage } from "../llm/types.js";
import { EMPTY_ANSWER_NUDGE, runTurn } from "./loop.js";
import { LENGTH_CONTINUATION_NOTE } from "./model-step.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

const sent = (n: number) => llm.requests[n]?.body.messages as { role: string; content: string }[];
const maxTokensSent = () => llm.requests.map((request) => request.body.max_tokens as number | undefined);

/** Every assistant tool-call id in `history` has exactly one tool result, after it. */
function expectEveryCallAnswered(history: ChatMessage[]): void {
  const ids = history.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : []));
  const answered = history.flatMap((message) => (message.role === "tool" ? [message.tool_call_id] : []));
  expect(answered.sort()).toEqual(ids.sort());
}

describe("answers cut off by the output cap", () => {
  it("continues a truncated answer, raising the cap each time, and stores one message", async () => {
    llm.push(
      { text: "Part one ", finishReason: "length" },
      { text: "part two ", finishReason: "length" },
      { text: "part three." },
    );
    const { input, events, history } = testTurn(llm, { maxTokens: 100 });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(maxTokensSent()).toEqual([100, 200, 400]);
    expect(sent(1).slice(-2)).toEqual([
      { role: "assistant", content: "Part one " },
      { role: "user", content: LENGTH_CONTINUATION_NOTE },
    ]);
    expect(sent(2).slice(-2)).toEqual([
      { role: "assistant", content: "Part one part two " },
      { role: "user", content: LENGTH_CONTINUATION_NOTE },
    ]);
    expect(shownText(events)).toBe("Part one part two part three.");
    expect(history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Part one part two part three.", finish_reason: "stop" },
    ]);
  });

  it("stops with max_tokens after three continuations", async () => {
    llm.push(...["a ", "b ", "c ", "d "].map((text) => ({ text, finishReason: "length" })));
    const { input, history } = testTurn(llm, { maxTokens: 100 });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("max_tokens");
    expect(maxTokensSent()).toEqual([100, 200, 400, 800]);
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "a b c d ", finish_reason: "length" });
  });

  it("doubles from 4096 when no cap is configured", async () => {
    llm.push({ text: "start ", finishReason: "length", usage: { completion_tokens: 10 } }, { text: "end" });
    const { input } = testTurn(llm);
    await runTurn(input);
    expect(maxTokensSent()).toEqual([undefined, 8_192]);
  });

  it("never runs a tool call cut off by the cap, answers its id, and re-asks with a higher cap", async () => {
    llm.push(
      {
        tool_calls: [
          { id: "whole", name: "echo", arguments: { text: "complete" } },
          { id: "cut", name: "echo", arguments: '{"text": "half of i' },
        ],
        finishReason: "length",
      },
      { tool_calls: [{ id: "again", name: "echo", arguments: { text: "half of it" } }] },
      { text: "done" },
    );
    const { input, events, history, runs } = testTurn(llm, { maxTokens: 100 });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(runs.get("echo")).toBe(2);
    // Read-only calls of one message run concurrently, so their ends may arrive in any order.
    const ends = new Map(events.flatMap((event) => (event.type === "tool_end" ? [[event.callId, event] as const] : [])));
    expect([...ends.keys()].sort()).toEqual(["again", "cut", "whole"]);
    expect(ends.get("whole")).toMatchObject({ isError: false, content: "echo:complete" });
    expect(ends.get("cut")).toMatchObject({ isError: true });
    expect(ends.get("cut")?.content).toContain("cut off by the output length limit");
    expect(ends.get("again")).toMatchObject({ isError: false, content: "echo:half of it" });
    expect(history.filter((message) => message.role === "tool").map((message) => message.tool_call_id)).toEqual(["whole", "cut", "again"]);
    expect(maxTokensSent()).toEqual([100, 200, 200]);
    expectEveryCallAnswered(history);
  });

  it("stops with max_tokens when tool calls keep being cut off, every id answered", async () => {
    const cut = { tool_calls: [{ name: "echo", arguments: '{"text": "' }], finishReason: "length" };
    llm.push(cut, cut, cut, cut);
    const { input, history, runs } = testTurn(llm, { maxTokens: 100 });
    expect((await runTurn(input)).stopReason).toBe("max_tokens");
    expect(llm.requests).toHaveLength(4);
    expect(runs.get("echo")).toBeUndefined();
    expectEveryCallAnswered(history);
  });

  it("says so when reasoning used the whole budget", async () => {
    llm.push({ text: "<think>on and on", finishReason: "length" });
    const { input, events, history } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("max_tokens");
    expect(llm.requests).toHaveLength(1);
    expect(shownText(events)).toContain("raise model.max_tokens");
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: null, reasoning: "on and on" });
  });
});

describe("broken, unknown and repeated tool calls", () => {
  it("tells the model exactly what was wrong with invalid JSON arguments", async () => {
    llm.push({ tool_calls: [{ id: "bad", name: "echo", arguments: '{"text": "a",}' }] }, { text: "sorry" });
    const { input, history, runs } = testTurn(llm);
    await runTurn(input);
    expect(runs.get("echo")).toBeUndefined();
    const result = history.find((message) => message.role === "tool");
    expect(result?.content).toMatch(/^Invalid JSON in arguments for echo: .+\. You sent: \{"text": "a",\}\n/);
    expect(result?.content).toContain("The tool was not run");
    expect(sent(1).at(-1)).toMatchObject({ role: "tool", content: result?.content });
  });

  it("names the wrong argument when the JSON is valid but does not fit", async () => {
    llm.push({ tool_calls: [{ id: "bad", name: "echo", arguments: { txt: "a" } }] }, { text: "sorry" });
    const { input, history } = testTurn(llm);
    await runTurn(input);
    expect(history.find((message) => message.role === "tool")?.content).toMatch(/^Invalid arguments for echo: text: /);
  });

  it("answers an unknown tool with the list of available tools", async () => {
    llm.push({ tool_calls: [{ id: "u1", name: "read_fiel", arguments: {} }] }, { text: "oops" });
    const { input, history } = testTurn(llm);
    await runTurn(input);
    expect(history.find((message) => message.role === "tool")).toMatchObject({
      tool_call_id: "u1",
      content: "Unknown tool 'read_fiel'. Available tools: echo",
    });
  });

  it("runs identical calls of one message once; the duplicate gets the same result", async () => {
    llm.push(
      {
        tool_calls: [
          { id: "d1", name: "echo", arguments: '{"text":"same"}' },
          { id: "d2", name: "echo", arguments: '{ "text" : "same" }' },
          { id: "d3", name: "echo", arguments: { text: "other" } },
        ],
      },
      { text: "ok" },
    );
    const { input, events, history, runs } = testTurn(llm);
    await runTurn(input);
    expect(runs.get("echo")).toBe(2);
    const results = history.flatMap((message) => (message.role === "tool" ? [[message.tool_call_id, message.content]] : []));
    expect(results).toEqual([
      ["d1", "echo:same"],
      ["d2", "echo:same"],
      ["d3", "echo:other"],
    ]);
    const ends = events.flatMap((event) => (event.type === "tool_end" ? [[event.callId, event.content]] : []));
    expect(ends.sort()).toEqual(results);
  });
});

describe("empty answers after tools", () => {
  it("nudges once, without keeping the nudge in history", async () => {
    llm.push({ tool_calls: [{ id: "t1", name: "echo", arguments: { text: "x" } }] }, { text: "" }, { text: "Here it is." });
    const { input, events, history } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(3);
    expect(sent(2).slice(-2)).toEqual([
      { role: "assistant", content: "(empty)" },
      { role: "user", content: EMPTY_ANSWER_NUDGE },
    ]);
    expect(sent(2).slice(0, -2)).toEqual(sent(1));
    expect(shownText(events)).toBe("Here it is.");
    expect(history.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(JSON.stringify(history)).not.toContain(EMPTY_ANSWER_NUDGE);
  });

  it("nudges at most once per turn", async () => {
    llm.push({ tool_calls: [{ id: "t1", name: "echo", arguments: { text: "x" } }] }, { text: "" }, { text: "" });
    const { input } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(3);
  });

  it("does not nudge an empty answer that follows no tool results", async () => {
    llm.push({ text: "" });
    const { input } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(1);
  });
});

describe("reasoning", () => {
  it("moves <think> blocks split across chunks out of the visible and stored answer", async () => {
    llm.push({ text: "", chunks: ["<thi", "nk>plan", " it</th", "ink>\n\nThe ", "answer"] });
    const { input, events, history } = testTurn(llm);
    await runTurn(input);
    expect(shownReasoning(events)).toBe("plan it");
    expect(shownText(events)).toBe("The answer");
    for (const event of events) if (event.type === "message_delta") expect(event.text).not.toContain("<");
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "The answer", reasoning: "plan it" });
  });

  it("handles <thinking> too", async () => {
    llm.push({ text: "", chunks: ["<thinking>", "hmm</thinking>", "Yes."] });
    const { input, events, history } = testTurn(llm);
    await runTurn(input);
    expect(shownReasoning(events)).toBe("hmm");
    expect(history.at(-1)).toMatchObject({ content: "Yes.", reasoning: "hmm" });
  });

  it("reads the `reasoning` field as well as `reasoning_content`", async () => {
    llm.push({ reasoning: "via reasoning", text: "A", reasoningField: "reasoning" });
    const { input, events, history } = testTurn(llm);
    await runTurn(input);
    expect(shownReasoning(events)).toBe("via reasoning");
    expect(history.at(-1)).toMatchObject({ content: "A", reasoning: "via reasoning" });
  });

  it("does not show a thought twice when the provider sends it natively and inline", async () => {
    llm.push({ reasoning: "native thought", text: "<think>native thought</think>Answer" });
    const { input, events, history } = testTurn(llm);
    await runTurn(input);
    expect(shownReasoning(events)).toBe("native thought");
    expect(history.at(-1)).toMatchObject({ content: "Answer", reasoning: "native thought" });
  });

  it("keeps reasoning out of the text the next call is sent", async () => {
    llm.push(
      { text: "<think>secret plan</think>", tool_calls: [{ id: "t1", name: "echo", arguments: { text: "x" } }] },
      { text: "fine" },
    );
    const { input } = testTurn(llm);
    await runTurn(input);
    expect(JSON.stringify(sent(1))).not.toContain("secret plan");
  });
});

describe("stop reasons", () => {
  it("reports a content filter as refusal", async () => {
    llm.push({ text: "I can't", finishReason: "content_filter" });
    const { input, events } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("refusal");
    expect(events.at(-1)).toMatchObject({ type: "turn_end", stopReason: "refusal" });
  });
});
