import { afterEach, describe, expect, it } from "vitest";
import { fakeSignature, startFakeAnthropic, type AnthropicStep, type FakeAnthropic } from "../../test/support/fake-anthropic.js";
import { createAnthropicProvider } from "./anthropic.js";
import { toAnthropicConversation } from "./anthropic-messages.js";
import { ADAPTIVE_MIN_MAX_TOKENS, THINKING_ANSWER_TOKENS, THINKING_BUDGETS, thinkingParams, thinkingStyle } from "./anthropic-thinking.js";
import type { ChatMessage, ModelRequest, Provider, ProviderEvent, ReasoningDetail } from "./types.js";

/**
 * Extended thinking through the Anthropic provider against the scripted Messages API server, which
 * checks signatures and refuses a tool use continued without its thinking block, as the API does.
 */

let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(steps: AnthropicStep[]): Promise<{ fake: FakeAnthropic; provider: Provider }> {
  server = await startFakeAnthropic(steps);
  return { fake: server, provider: createAnthropicProvider({ id: "anthropic", baseUrl: server.baseUrl, apiKey: "sk-ant-thinking-test" }) };
}

async function run(provider: Provider, request: ModelRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(request, new AbortController().signal)) events.push(event);
  return events;
}

function details(events: ProviderEvent[]): ReasoningDetail[] {
  return events.flatMap((event) => (event.type === "reasoning_detail" ? [event.detail] : []));
}

describe("thinkingStyle", () => {
  it.each([
    ["claude-3-7-sonnet-20250219", "budget"],
    ["claude-sonnet-4-20250514", "budget"],
    ["claude-opus-4-1", "budget"],
    ["anthropic/claude-sonnet-4.5", "budget"],
    ["claude-haiku-4-5-20251001", "budget"],
    ["claude-opus-4-6", "adaptive"],
    ["claude-sonnet-4.6", "adaptive"],
    ["claude-opus-4-7", "adaptive"],
    ["claude-opus-5", "adaptive"],
    ["claude-sonnet-5-5", "adaptive"],
    ["claude-mythos-preview", "adaptive"],
    ["claude-fable-5-1", "adaptive"],
  ])("%s takes %s thinking", (model, style) => {
    expect(thinkingStyle(model)).toBe(style);
  });
});

describe("thinkingParams", () => {
  const ask = (model: string, reasoningEffort?: ModelRequest["reasoningEffort"]): ModelRequest => ({ model, messages: [], ...(reasoningEffort ? { reasoningEffort } : {}) });

  it("gives budget models a budget per effort below max_tokens, raising max_tokens where needed", () => {
    for (const effort of ["low", "medium", "high"] as const) {
      const params = thinkingParams(ask("claude-haiku-4-5", effort), 16_384, []);
      expect(params.thinking).toEqual({ type: "enabled", budget_tokens: THINKING_BUDGETS[effort] });
      expect(params.max_tokens).toBe(Math.max(16_384, THINKING_BUDGETS[effort] + THINKING_ANSWER_TOKENS));
      expect(params.max_tokens).toBeGreaterThan(THINKING_BUDGETS[effort]);
      expect(params.output_config).toBeUndefined();
    }
    expect(THINKING_BUDGETS.low).toBeGreaterThanOrEqual(1024);
  });

  it("gives adaptive models adaptive thinking with the effort, shown summarized", () => {
    expect(thinkingParams(ask("claude-opus-4-6", "medium"), 16_384, [])).toEqual({
      thinking: { type: "adaptive", display: "summarized" },
      output_config: { effort: "medium" },
      max_tokens: ADAPTIVE_MIN_MAX_TOKENS,
    });
  });

  it("sends nothing without an effort, at none, or for a model without extended thinking", () => {
    expect(thinkingParams(ask("claude-haiku-4-5"), 1000, [])).toEqual({ max_tokens: 1000 });
    expect(thinkingParams(ask("claude-haiku-4-5", "none"), 1000, [])).toEqual({ max_tokens: 1000 });
    expect(thinkingParams(ask("claude-3-5-haiku-latest", "high"), 1000, [])).toEqual({ max_tokens: 1000 });
    expect(thinkingParams(ask("MiniMax-M2", "high"), 1000, [])).toEqual({ max_tokens: 1000 });
  });

  it("waits with thinking while a tool use goes on whose assistant turn has no thinking block", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "todo", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: "ok" },
    ];
    const without = toAnthropicConversation(history).messages;
    expect(thinkingParams(ask("claude-haiku-4-5", "high"), 1000, without)).toEqual({ max_tokens: 1000 });
    const signed = { type: "thinking" as const, thinking: "plan", signature: fakeSignature("plan") };
    const withThinking = toAnthropicConversation([history[0]!, { ...(history[1] as Extract<ChatMessage, { role: "assistant" }>), reasoning_details: [signed] }, history[2]!]).messages;
    expect(thinkingParams(ask("claude-haiku-4-5", "high"), 1000, withThinking).thinking).toEqual({ type: "enabled", budget_tokens: THINKING_BUDGETS.high });
  });
});

describe("anthropic provider: extended thinking", () => {
  it("streams thoughts as reasoning deltas and tells each signed block, and redacted ones, whole", async () => {
    const { provider } = await setup([{ thinking: "First, read the file. Then decide.", redactedThinking: "ZW5jcnlwdGVk", text: "Done." }]);
    const events = await run(provider, { model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }], reasoningEffort: "medium" });
    const thoughts = events.filter((event) => event.type === "reasoning_delta");
    expect(thoughts.length).toBeGreaterThan(1);
    expect(thoughts.map((event) => (event as { text: string }).text).join("")).toBe("First, read the file. Then decide.");
    expect(details(events)).toEqual([
      { type: "thinking", thinking: "First, read the file. Then decide.", signature: fakeSignature("First, read the file. Then decide.") },
      { type: "redacted_thinking", data: "ZW5jcnlwdGVk" },
    ]);
    // each block is told when it is complete, before the answer's text
    expect(events.findIndex((event) => event.type === "reasoning_detail")).toBeLessThan(events.findIndex((event) => event.type === "text_delta"));
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
  });

  it("keeps no detail of an unsigned thinking block", async () => {
    const { provider } = await setup([{ thinking: "unsigned thoughts", thinkingSignature: "", text: "ok" }]);
    const events = await run(provider, { model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] });
    expect(events.some((event) => event.type === "reasoning_delta")).toBe(true);
    expect(details(events)).toEqual([]);
  });

  it("sends the thinking block back, signed and before the tool use, on the call that continues the tool use", async () => {
    const { fake, provider } = await setup([
      { thinking: "I should list the directory first.", tool_use: [{ id: "toolu_ls", name: "terminal", input: { command: "ls" } }] },
      { text: "There are two files." },
    ]);
    const user: ChatMessage = { role: "user", content: "What is here?" };
    const first = await run(provider, { model: "claude-haiku-4-5", messages: [user], reasoningEffort: "high" });
    expect(fake.messageBodies()[0]).toMatchObject({ thinking: { type: "enabled", budget_tokens: THINKING_BUDGETS.high } });
    expect(fake.messageBodies()[0].temperature).toBeUndefined();
    const end = first.find((event) => event.type === "tool_call_end") as Extract<ProviderEvent, { type: "tool_call_end" }>;
    const history: ChatMessage[] = [
      user,
      { role: "assistant", content: null, reasoning_details: details(first), tool_calls: [{ id: end.id, type: "function", function: { name: end.name, arguments: end.arguments } }] },
      { role: "tool", tool_call_id: end.id, content: "a.ts\nb.ts" },
    ];
    const second = await run(provider, { model: "claude-haiku-4-5", messages: history, reasoningEffort: "high" });
    expect(second.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    const body = fake.messageBodies()[1];
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: THINKING_BUDGETS.high });
    expect(body.messages[1].content).toMatchObject([
      { type: "thinking", thinking: "I should list the directory first.", signature: fakeSignature("I should list the directory first.") },
      { type: "tool_use", id: "toolu_ls", name: "terminal", input: { command: "ls" } },
    ]);
    expect(body.messages[1].content[0].cache_control).toBeUndefined();
  });

  it("is refused by the server when the thinking block is dropped — and so continues such a tool use without thinking", async () => {
    const { fake, provider } = await setup([{ text: "fine" }]);
    const history: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "todo", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "ok" },
    ];
    // what a provider sending thinking regardless would send: the server refuses it
    const forced = await fetch(`${fake.baseUrl}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 20_000, thinking: { type: "enabled", budget_tokens: 2048 }, messages: toAnthropicConversation(history).messages }),
    });
    expect(forced.status).toBe(400);
    expect(JSON.stringify(await forced.json())).toContain("must start with a thinking block");
    const events = await run(provider, { model: "claude-haiku-4-5", messages: history, reasoningEffort: "high" });
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    expect(fake.messageBodies().at(-1).thinking).toBeUndefined();
  });

  it("sends adaptive thinking with the effort to models that take it", async () => {
    const { fake, provider } = await setup([{ thinking: "", text: "ok" }]);
    const events = await run(provider, { model: "claude-opus-4-7", messages: [{ role: "user", content: "hi" }], reasoningEffort: "low" });
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    expect(fake.messageBodies()[0]).toMatchObject({ thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "low" }, max_tokens: ADAPTIVE_MIN_MAX_TOKENS });
    // an omitted (empty) thought still comes with its signature, kept for the next call
    expect(details(events)).toEqual([{ type: "thinking", thinking: "", signature: fakeSignature("") }]);
  });
});
