import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeAnthropic, type AnthropicStep, type FakeAnthropic } from "../../test/support/fake-anthropic.js";
import { createAnthropicProvider, defaultMaxTokens, type AnthropicProviderOptions } from "./anthropic.js";
import type { ChatMessage, ModelRequest, Provider, ProviderEvent } from "./types.js";

const API_KEY = "sk-ant-test-secret-key-1234";
let server: FakeAnthropic | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(steps: AnthropicStep[], options: Partial<AnthropicProviderOptions> = {}): Promise<{ fake: FakeAnthropic; provider: Provider }> {
  server = await startFakeAnthropic(steps);
  const provider = createAnthropicProvider({ id: "anthropic", baseUrl: server.baseUrl, apiKey: API_KEY, ...options });
  return { fake: server, provider };
}

const request: ModelRequest = { model: "claude-test", messages: [{ role: "user", content: "hi" }] };

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function only<T extends ProviderEvent["type"]>(events: ProviderEvent[], type: T): Extract<ProviderEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ProviderEvent, { type: T }> => event.type === type);
}

const run = (provider: Provider, req: ModelRequest = request): Promise<ProviderEvent[]> => collect(provider.stream(req, new AbortController().signal));

describe("anthropic provider: streaming", () => {
  it("streams text deltas, then usage with cache reads and writes, then done", async () => {
    const { fake, provider } = await setup([
      { text: "The quick brown fox jumps over the lazy dog", usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 100, cache_creation_input_tokens: 30 } },
    ]);
    const events = await run(provider);
    const deltas = only(events, "text_delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.text).join("")).toBe("The quick brown fox jumps over the lazy dog");
    expect(events.slice(-2)).toEqual([
      { type: "usage", usage: { inputTokens: 150, outputTokens: 9, totalTokens: 159, cachedTokens: 100, cacheWriteTokens: 30 } },
      { type: "done", finishReason: "stop" },
    ]);
    const sent = fake.requests[0];
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.body).toMatchObject({ model: "claude-test", stream: true, max_tokens: defaultMaxTokens("claude-test") });
    expect(sent?.headers["x-api-key"]).toBe(API_KEY);
    expect(sent?.headers["anthropic-version"]).toBeTruthy();
  });

  it("routes thinking to reasoning deltas, before the answer", async () => {
    const { provider } = await setup([{ thinking: "Let me weigh both options carefully.", text: "Option B." }]);
    const events = await run(provider);
    expect(only(events, "reasoning_delta").map((e) => e.text).join("")).toBe("Let me weigh both options carefully.");
    expect(only(events, "text_delta").map((e) => e.text).join("")).toBe("Option B.");
    expect(events.findIndex((e) => e.type === "reasoning_delta")).toBeLessThan(events.findIndex((e) => e.type === "text_delta"));
  });

  it("assembles tool_use blocks from input_json deltas into tool-call start / delta / end", async () => {
    const { provider } = await setup([
      {
        text: "Reading both.",
        tool_use: [
          { id: "toolu_a", name: "read_file", input: { path: "src/a.ts", offset: 10 } },
          { id: "toolu_b", name: "search_files", input: { pattern: "TODO" } },
        ],
      },
    ]);
    const events = await run(provider);
    expect(only(events, "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "toolu_a", name: "read_file" },
      { type: "tool_call_start", index: 1, id: "toolu_b", name: "search_files" },
    ]);
    const fragments = only(events, "tool_call_delta").filter((e) => e.index === 0);
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.map((e) => e.argumentsDelta).join("")).toBe('{"path":"src/a.ts","offset":10}');
    const ends = only(events, "tool_call_end");
    expect(ends.map((e) => [e.id, e.name, JSON.parse(e.arguments)])).toEqual([
      ["toolu_a", "read_file", { path: "src/a.ts", offset: 10 }],
      ["toolu_b", "search_files", { pattern: "TODO" }],
    ]);
    const lastDelta = events.map((e) => e.type).lastIndexOf("tool_call_delta");
    expect(events.findIndex((e) => e.type === "tool_call_end")).toBeGreaterThan(lastDelta);
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls" });
  });

  it("gives a tool call without input fragments the arguments {}", async () => {
    const { provider } = await setup([{ tool_use: [{ id: "toolu_x", name: "todo", input: "" }] }]);
    const events = await run(provider);
    expect(only(events, "tool_call_end")[0]?.arguments).toBe("{}");
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["refusal", "content_filter"],
    ["model_context_window_exceeded", "length"],
  ])("maps stop_reason %s to %s", async (stopReason, finishReason) => {
    const { provider } = await setup([{ text: "partial answer", stopReason }]);
    expect((await run(provider)).at(-1)).toEqual({ type: "done", finishReason });
  });

  it("reports a tool call cut by max_tokens as length, so it is never executed", async () => {
    const { provider } = await setup([{ tool_use: [{ name: "write_file", input: '{"path":"a.ts","content":"unfinish' }], stopReason: "max_tokens" }]);
    expect((await run(provider)).at(-1)).toEqual({ type: "done", finishReason: "length" });
  });

  it("sends maxTokens when the request sets it, and the per-model default otherwise", async () => {
    const { fake, provider } = await setup([{ text: "a" }, { text: "b" }]);
    await run(provider, { ...request, maxTokens: 1234 });
    await run(provider, { ...request, model: "claude-3-5-haiku-latest" });
    expect(fake.messageBodies().map((body) => body.max_tokens)).toEqual([1234, 8192]);
  });
});

describe("anthropic provider: what the server receives", () => {
  const history: ChatMessage[] = [
    { role: "system", content: "You are Hermes." },
    { role: "user", content: "Look at two files." },
    {
      role: "assistant",
      content: "Reading them.",
      reasoning: "private thoughts",
      tool_calls: [
        { id: "toolu_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
        { id: "toolu_2", type: "function", function: { name: "read_file", arguments: "{not json" } },
      ],
    },
    { role: "tool", tool_call_id: "toolu_1", content: "contents of a" },
    { role: "tool", tool_call_id: "toolu_2", content: "Invalid JSON arguments" },
    { role: "assistant", content: "Both read." },
    {
      role: "user",
      content: [
        { type: "text", text: "And this screenshot?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    },
  ];

  it("converts history, merges consecutive tool results, and places 4 cache breakpoints", async () => {
    const { fake, provider } = await setup([{ text: "It shows a button." }]);
    const events = await run(provider, { model: "claude-test", messages: history, tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }] });
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    const body = fake.messageBodies()[0];
    expect(body.system).toEqual([{ type: "text", text: "You are Hermes.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools).toEqual([{ name: "read_file", description: "Read", input_schema: { type: "object", properties: { path: { type: "string" } } } }]);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(body.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "Look at two files." }] });
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Reading them." },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
        { type: "tool_use", id: "toolu_2", name: "read_file", input: {} },
      ],
    });
    expect(body.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "contents of a" },
      { type: "tool_result", tool_use_id: "toolu_2", content: "Invalid JSON arguments", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.messages[3].content).toEqual([{ type: "text", text: "Both read.", cache_control: { type: "ephemeral" } }]);
    expect(body.messages[4].content).toEqual([
      { type: "text", text: "And this screenshot?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }, cache_control: { type: "ephemeral" } },
    ]);
    expect(JSON.stringify(body)).not.toContain("private thoughts");
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(4);
  });

  it("puts a user message sent between tool results after the results in the merged turn", async () => {
    const { fake, provider } = await setup([{ text: "ok" }]);
    const messages: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "terminal", arguments: "{}" } }] },
      { role: "user", content: "steer: use pnpm" },
      { role: "tool", tool_call_id: "t1", content: "done" },
    ];
    await run(provider, { model: "claude-test", messages });
    const turn = fake.messageBodies()[0].messages[2];
    expect(turn.content.map((block: { type: string }) => block.type)).toEqual(["tool_result", "text"]);
  });

  it("sends no cache_control when prompt caching is off", async () => {
    const { fake, provider } = await setup([{ text: "ok" }], { promptCaching: false });
    await run(provider, { model: "claude-test", messages: history });
    expect(JSON.stringify(fake.messageBodies()[0])).not.toContain("cache_control");
  });
});

describe("anthropic provider: failures", () => {
  it("classifies a 429 with Retry-After as rate_limit and honours the delay", async () => {
    const { provider } = await setup([{ status: 429, errorType: "rate_limit_error", message: "Number of requests has exceeded your rate limit", headers: { "retry-after": "7" } }]);
    const events = await run(provider);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", kind: "rate_limit", status: 429, retryAfterMs: 7000 });
    expect((events[0] as { message: string }).message).toBe("anthropic: HTTP 429: Number of requests has exceeded your rate limit");
  });

  it.each([
    [401, "authentication_error", "invalid x-api-key", "auth"],
    [403, "permission_error", "not allowed", "auth"],
    [400, "invalid_request_error", "prompt is too long: 215000 tokens > 200000 maximum", "context_overflow"],
    [400, "invalid_request_error", "tools.0.name: String should match pattern", "bad_request"],
    [413, "request_too_large", "Request exceeds the maximum allowed number of bytes", "payload_too_large"],
    [529, "overloaded_error", "Overloaded", "server"],
    [500, "api_error", "Internal server error", "server"],
  ])("classifies HTTP %i %s as %s", async (status, errorType, message, kind) => {
    const { provider } = await setup([{ status, errorType, message }]);
    const [event] = await run(provider);
    expect(event).toMatchObject({ type: "error", kind, status });
  });

  it("classifies an error event inside the stream by its type, after the text already sent", async () => {
    const { provider } = await setup([{ text: "Half an answer", streamError: { type: "overloaded_error", message: "Overloaded" } }]);
    const events = await run(provider);
    expect(only(events, "text_delta").map((e) => e.text).join("")).toBe("Half an answer");
    expect(events.at(-1)).toMatchObject({ type: "error", kind: "server", message: "anthropic: stream error (overloaded_error): Overloaded" });
    expect(only(events, "done")).toHaveLength(0);
  });

  it("never puts the API key in an error message", async () => {
    const { provider } = await setup([{ status: 401, errorType: "authentication_error", message: `invalid key ${API_KEY}` }]);
    const [event] = await run(provider);
    expect((event as { message: string }).message).not.toContain(API_KEY);
  });

  it("reports a stream cut mid-way as a network error, with no done and no tool-call end", async () => {
    const { provider } = await setup([{ text: "one two three four five six seven eight", tool_use: [{ name: "x", input: { a: 1 } }], cutAfterDeltas: 3 }]);
    const events = await run(provider);
    expect(events.at(-1)).toMatchObject({ type: "error", kind: "network" });
    expect(only(events, "tool_call_end")).toHaveLength(0);
    expect(only(events, "done")).toHaveLength(0);
  });

  it("reports a refused connection as a network error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const provider = createAnthropicProvider({ id: "anthropic", baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY });
    const events = await run(provider);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", kind: "network" });
  });

  it("ends with an aborted error when the caller aborts a stalled call", async () => {
    const { fake, provider } = await setup([{ stall: true }]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    const done = (async () => {
      for await (const event of provider.stream(request, controller.signal)) events.push(event);
    })();
    while (fake.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await done;
    expect(events).toEqual([{ type: "error", kind: "aborted", message: "request aborted" }]);
  });

  it("ends with a timeout error when the stream goes silent longer than idleTimeoutMs", async () => {
    const { provider } = await setup([{ stall: true }], { idleTimeoutMs: 50, timeoutMs: 60_000 });
    const events = await run(provider);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", kind: "timeout" });
  });

  it("answers an already-aborted signal with an aborted error and sends nothing", async () => {
    const { fake, provider } = await setup([{ text: "unused" }]);
    const controller = new AbortController();
    controller.abort();
    expect(await collect(provider.stream(request, controller.signal))).toEqual([{ type: "error", kind: "aborted", message: "request aborted" }]);
    expect(fake.requests).toHaveLength(0);
  });
});
