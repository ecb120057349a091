import { afterEach, describe, expect, it } from "vitest";
import { fakeSignature, messagesRequestProblem, startFakeAnthropic, type AnthropicStep, type FakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(...steps: AnthropicStep[]): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(steps);
  return server;
}

const post = (fake: FakeAnthropic, body: unknown): Promise<Response> =>
  fetch(`${fake.baseUrl}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const basic = { model: "claude-x", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] };

/** SSE blocks as [event, parsed data]. */
async function sse(response: Response): Promise<[string, Record<string, unknown>][]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine] = block.split("\n");
      return [eventLine?.replace(/^event: /, "") ?? "", JSON.parse(dataLine?.replace(/^data: /, "") ?? "{}") as Record<string, unknown>];
    });
}

describe("fake-anthropic", () => {
  it("streams Anthropic's event sequence, each data payload typed like its event", async () => {
    const fake = await start({ thinking: "hmm", text: "hello there", tool_use: [{ id: "toolu_1", name: "x", input: { a: 1 } }] });
    const events = await sse(await post(fake, basic));
    for (const [name, data] of events) expect(data.type).toBe(name);
    const names = events.map(([name]) => name).filter((name) => name !== "content_block_delta");
    expect(names).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_stop",
      "content_block_start",
      "content_block_stop",
      "content_block_start",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const deltaTypes = new Set(events.filter(([name]) => name === "content_block_delta").map(([, data]) => (data.delta as { type: string }).type));
    expect([...deltaTypes].sort()).toEqual(["input_json_delta", "signature_delta", "text_delta", "thinking_delta"]);
    expect(events.find(([name]) => name === "message_delta")?.[1]).toMatchObject({ delta: { stop_reason: "tool_use" } });
  });

  it("answers 400 invalid_request_error for a request breaking the API's rules, without consuming a step", async () => {
    const fake = await start({ text: "ok" });
    const bad = await post(fake, { ...basic, messages: [{ role: "assistant", content: "first" }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(fake.remaining()).toBe(1);
  });

  it("serves the model list", async () => {
    const fake = await start();
    const response = await fetch(`${fake.baseUrl}/v1/models`);
    expect(await response.json()).toMatchObject({ data: [{ id: "claude-fake" }], has_more: false });
  });
});

describe("messagesRequestProblem", () => {
  const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] };
  it.each([
    ["unanswered tool_use", [{ role: "user", content: "go" }, toolUse, { role: "user", content: "next" }], /without tool_result/],
    ["stray tool_result", [{ role: "user", content: [{ type: "tool_result", tool_use_id: "nope", content: "x" }] }], /unexpected tool_use_id/],
    ["result after text", [{ role: "user", content: "go" }, toolUse, { role: "user", content: [{ type: "text", text: "a" }, { type: "tool_result", tool_use_id: "t1", content: "x" }] }], /must come first/],
    ["blank text", [{ role: "user", content: [{ type: "text", text: "  " }] }], /non-whitespace/],
    ["two user turns", [{ role: "user", content: "a" }, { role: "user", content: "b" }], /alternate/],
  ])("finds %s", (_name, messages, problem) => {
    expect(messagesRequestProblem({ ...basic, messages })).toMatch(problem);
  });

  it("counts cache_control breakpoints across system, tools and messages", () => {
    const mark = { cache_control: { type: "ephemeral" } };
    const messages = [
      { role: "user", content: [{ type: "text", text: "a", ...mark }] },
      { role: "assistant", content: [{ type: "text", text: "b", ...mark }] },
      { role: "user", content: [{ type: "text", text: "c", ...mark }] },
    ];
    expect(messagesRequestProblem({ ...basic, system: [{ type: "text", text: "s", ...mark }], messages })).toBeUndefined();
    expect(messagesRequestProblem({ ...basic, system: [{ type: "text", text: "s", ...mark }], tools: [{ name: "t", ...mark }], messages })).toMatch(/maximum of 4/);
  });

  it("checks extended thinking as the API does: budgets, signatures, thinking blocks kept while tool use goes on", () => {
    const thinking = { type: "enabled", budget_tokens: 2048 };
    const toolTurn = (first: Record<string, unknown>[]) => [
      { role: "user", content: "go" },
      { role: "assistant", content: [...first, { type: "tool_use", id: "t1", name: "x", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
    ];
    const signed = { type: "thinking", thinking: "plan", signature: fakeSignature("plan") };
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking, messages: toolTurn([signed]) })).toBeUndefined();
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking, messages: toolTurn([{ type: "redacted_thinking", data: "x" }]) })).toBeUndefined();
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking, messages: toolTurn([]) })).toMatch(/must start with a thinking block/);
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking: { type: "adaptive" }, messages: toolTurn([]) })).toMatch(/must start with a thinking block/);
    // thinking off: a tool turn without its thinking is fine
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, messages: toolTurn([]) })).toBeUndefined();
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking, messages: toolTurn([{ ...signed, thinking: "edited" }]) })).toMatch(/Invalid `signature`/);
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, messages: toolTurn([{ ...signed, signature: "forged" }]) })).toMatch(/Invalid `signature`/);
    expect(messagesRequestProblem({ ...basic, max_tokens: 2048, thinking, messages: basic.messages })).toMatch(/greater than `thinking.budget_tokens`/);
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking: { type: "enabled", budget_tokens: 100 }, messages: basic.messages })).toMatch(/1024/);
    expect(messagesRequestProblem({ ...basic, max_tokens: 20_000, thinking, temperature: 0.2, messages: basic.messages })).toMatch(/temperature/);
  });
});
