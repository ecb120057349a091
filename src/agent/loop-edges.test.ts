/**
 * The loop against model servers at the edges: no response headers, an endless stream, long retry
 * waits, and tool calls with arguments that are not JSON. Limits are tiny and configured; nothing
 * here measures time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { shownReasoning, shownText, testTurn } from "../../test/support/agent-turn.js";
import { startFakeAnthropic } from "../../test/support/fake-anthropic.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { createAnthropicProvider } from "../llm/anthropic.js";
import type { Provider } from "../llm/types.js";
import type { AgentEvent } from "./events.js";
import { cappedModelNote, runTurn } from "./loop.js";
import { callModel } from "./model-call.js";
import { sendableHistory } from "./sendable-history.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

describe("a model server that never sends response headers", () => {
  it("ends the turn after the connect timeout, retrying like any timeout", async () => {
    llm.push({ hang: "headers" }, { hang: "headers" }, { hang: "headers" });
    const { input, events, waits } = testTurn(llm, {}, { connectTimeoutMs: 200 });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(shownText(events)).toMatch(/^Error: .*/);
    expect(events.at(-1)).toMatchObject({ type: "turn_end", stopReason: "end_turn" });
    await vi.waitFor(() => expect(llm.inFlight()).toBe(0));
  });

  it("ends the turn as cancelled when the user cancels while waiting for headers", async () => {
    llm.push({ hang: "headers" });
    const controller = new AbortController();
    const { input } = testTurn(llm, { signal: controller.signal });
    const done = runTurn(input);
    await vi.waitFor(() => expect(llm.requests).toHaveLength(1));
    controller.abort();
    expect((await done).stopReason).toBe("cancelled");
    await vi.waitFor(() => expect(llm.inFlight()).toBe(0));
  });
});

describe("a model server that streams forever", () => {
  it("stops the response at max_response_chars, closes the stream and ends the turn with max_tokens and a note", async () => {
    llm.push({ endless: true });
    const { input, events, history } = testTurn(llm, { maxResponseChars: 30_000 });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("max_tokens");
    expect(llm.requests).toHaveLength(1); // neither continued nor retried
    await vi.waitFor(() => expect(llm.inFlight()).toBe(0));
    const stored = history.at(-1);
    expect(stored).toMatchObject({ role: "assistant", finish_reason: "length" });
    const content = stored?.role === "assistant" ? (stored.content ?? "") : "";
    expect(content.endsWith(cappedModelNote(30_000))).toBe(true);
    expect(content.length).toBeLessThan(30_000 + 4_000 + cappedModelNote(30_000).length + 2);
    expect(shownText(events)).toContain("model.max_response_chars");
  });

  it("stops an endless Anthropic stream the same way", async () => {
    const fake = await startFakeAnthropic([{ endless: true }]);
    try {
      const provider = createAnthropicProvider({ id: "anthropic", baseUrl: fake.baseUrl, apiKey: "k" });
      const { input } = testTurn(llm, { provider, maxResponseChars: 20_000 });
      expect((await runTurn(input)).stopReason).toBe("max_tokens");
      await vi.waitFor(() => expect(fake.inFlight()).toBe(0));
    } finally {
      await fake.close();
    }
  });

  it("counts reasoning and tool-argument characters too, and closes the provider's stream", async () => {
    let closed = false;
    const provider: Provider = {
      id: "inline",
      async *stream() {
        try {
          yield { type: "tool_call_start", index: 0, id: "c1", name: "echo" };
          for (;;) {
            yield { type: "reasoning_delta", text: "r".repeat(1_000) };
            yield { type: "tool_call_delta", index: 0, argumentsDelta: "a".repeat(1_000) };
          }
        } finally {
          closed = true;
        }
      },
    };
    const step = await callModel(provider, { model: "m", messages: [] }, "m1", new AbortController().signal, () => undefined, 10_000);
    expect(step).toMatchObject({ capped: true, outcome: { kind: "done", finishReason: "length" }, toolCalls: [] });
    expect(step.reasoning.length).toBeLessThanOrEqual(6_000);
    expect(closed).toBe(true);
  });

  it("counts final tool arguments that were never streamed as fragments", async () => {
    const provider: Provider = {
      id: "inline",
      async *stream() {
        // A Responses API server may send the arguments only in `function_call_arguments.done`.
        yield { type: "tool_call_start", index: 0, id: "c1", name: "echo" };
        yield { type: "tool_call_delta", index: 0, argumentsDelta: "{" };
        yield { type: "tool_call_end", index: 0, id: "c1", name: "echo", arguments: `{"a":"${"x".repeat(20_000)}"}` };
        yield { type: "done", finishReason: "tool_calls" };
      },
    };
    const step = await callModel(provider, { model: "m", messages: [] }, "m1", new AbortController().signal, () => undefined, 10_000);
    expect(step).toMatchObject({ capped: true, outcome: { kind: "done", finishReason: "length" }, toolCalls: [] });
    const small = await callModel(
      {
        id: "inline",
        async *stream() {
          yield { type: "tool_call_start", index: 0, id: "c1", name: "echo" };
          yield { type: "tool_call_delta", index: 0, argumentsDelta: "x".repeat(6_000) };
          yield { type: "tool_call_end", index: 0, id: "c1", name: "echo", arguments: "x".repeat(6_000) };
          yield { type: "done", finishReason: "tool_calls" };
        },
      },
      { model: "m", messages: [] },
      "m1",
      new AbortController().signal,
      () => undefined,
      10_000,
    );
    expect(small.capped).toBeUndefined();
    expect(small.toolCalls).toHaveLength(1);
  });

  it("releases the stream on cancel and keeps only what was shown", async () => {
    llm.push({ endless: true });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    let shown = 0;
    const emit = (event: AgentEvent): void => {
      events.push(event);
      if (event.type === "message_delta") shown += event.text.length;
      if (shown > 40_000) controller.abort();
    };
    const { input, history } = testTurn(llm, { signal: controller.signal, emit });
    expect((await runTurn(input)).stopReason).toBe("cancelled");
    await vi.waitFor(() => expect(llm.inFlight()).toBe(0));
    const stored = history.at(-1);
    expect(stored).toMatchObject({ role: "assistant", finish_reason: "cancelled" });
    expect(stored?.role === "assistant" ? stored.content?.length : 0).toBe(shown);
  });
});

describe("retry waits", () => {
  it("tells the user about a wait longer than 3 s, with the wait and the reason, as a thought that is not stored", async () => {
    llm.push({ status: 429, headers: { "retry-after": "42" } }, { text: "made it" });
    const { input, events, history, waits } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(waits).toEqual([42_000]);
    const thought = shownReasoning(events);
    expect(thought).toContain("Waiting 42 s before retrying");
    expect(thought).toContain("rate-limiting");
    expect(thought).toContain("HTTP 429");
    expect(thought).toContain("Attempt 2 of 3");
    expect(shownText(events)).toBe("made it");
    expect(history.at(-1)).toEqual({ role: "assistant", content: "made it", finish_reason: "stop" });
  });

  it("says nothing about a short wait", async () => {
    llm.push({ status: 429, headers: { "retry-after": "2" } }, { text: "ok" });
    const { input, events } = testTurn(llm);
    await runTurn(input);
    expect(shownReasoning(events)).toBe("");
  });
});

describe("tool-call arguments that are not JSON", () => {
  it("are stored verbatim but sent back as {}, with the error result explaining", async () => {
    const broken = '{"text": "unterminated';
    llm.push({ tool_calls: [{ name: "echo", arguments: broken }] }, { text: "sorry" });
    const { input, history, runs } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(runs.get("echo")).toBeUndefined();
    const call = history.find((message) => message.role === "assistant" && message.tool_calls);
    expect(call?.role === "assistant" ? call.tool_calls?.[0]?.function.arguments : undefined).toBe(broken);
    const sent = llm.requests[1]?.body.messages as { role: string; tool_calls?: { function: { arguments: string } }[]; content: string }[];
    expect(sent.find((message) => message.tool_calls)?.tool_calls?.[0]?.function.arguments).toBe("{}");
    const result = sent.find((message) => message.role === "tool");
    expect(result?.content).toContain("Invalid JSON in arguments for echo");
    expect(result?.content).toContain(broken);
  });

  it("sendableHistory replaces only arguments that are not a JSON object and keeps other messages as they are", () => {
    const call = (id: string, args: string) => ({ id, type: "function" as const, function: { name: "echo", arguments: args } });
    const good = { role: "assistant" as const, content: null, tool_calls: [call("a", '{"text":"x"}')] };
    const bad = { role: "assistant" as const, content: null, tool_calls: [call("b", '{"text":"x"}'), call("c", "[1]"), call("d", ""), call("e", "{oops")] };
    const out = sendableHistory([good, bad]);
    expect(out[0]).toBe(good);
    expect(out[1]).toMatchObject({ tool_calls: [call("b", '{"text":"x"}'), call("c", "{}"), call("d", "{}"), call("e", "{}")] });
    expect(bad.tool_calls[3]?.function.arguments).toBe("{oops");
  });
});
