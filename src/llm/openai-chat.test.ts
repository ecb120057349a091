import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeLlm, type FakeLlm, type ScriptStep } from "../../test/support/fake-llm.js";
import { createOpenAiChatProvider, parseRetryAfterMs, type OpenAiChatProviderOptions } from "./openai-chat.js";
import type { ModelRequest, Provider, ProviderEvent } from "./types.js";

const API_KEY = "sk-test-secret-key-1234";
let llm: FakeLlm | undefined;

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function setup(
  steps: ScriptStep[],
  options: Partial<OpenAiChatProviderOptions> = {},
): Promise<{ server: FakeLlm; provider: Provider }> {
  llm = await startFakeLlm(steps);
  const provider = createOpenAiChatProvider({ id: "fake", baseUrl: llm.baseUrl, apiKey: API_KEY, ...options });
  return { server: llm, provider };
}

const request: ModelRequest = { model: "fake-model", messages: [{ role: "user", content: "hi" }] };

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function only<T extends ProviderEvent["type"]>(events: ProviderEvent[], type: T): Extract<ProviderEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ProviderEvent, { type: T }> => event.type === type);
}

describe("openai-chat provider", () => {
  it("streams text in several deltas, then usage and done", async () => {
    const { provider } = await setup([
      {
        text: "The quick brown fox jumps over the lazy dog again and again",
        usage: {
          prompt_tokens: 12,
          completion_tokens: 30,
          total_tokens: 42,
          completion_tokens_details: { reasoning_tokens: 5 },
          prompt_tokens_details: { cached_tokens: 8 },
        },
      },
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    const deltas = only(events, "text_delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.text).join("")).toBe("The quick brown fox jumps over the lazy dog again and again");
    expect(events.slice(-2)).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42, reasoningTokens: 5, cachedTokens: 8 },
      },
      { type: "done", finishReason: "stop" },
    ]);
  });

  it("reads reasoning from reasoning_content and from reasoning", async () => {
    const { provider } = await setup([
      { reasoning: "first I think hard about it", text: "answer one" },
      { reasoning: "then I think again", text: "answer two", reasoningField: "reasoning" },
    ]);
    for (const [thought, answer] of [
      ["first I think hard about it", "answer one"],
      ["then I think again", "answer two"],
    ]) {
      const events = await collect(provider.stream(request, new AbortController().signal));
      expect(only(events, "reasoning_delta").map((e) => e.text).join("")).toBe(thought);
      expect(only(events, "text_delta").map((e) => e.text).join("")).toBe(answer);
      expect(events.findIndex((e) => e.type === "reasoning_delta")).toBeLessThan(
        events.findIndex((e) => e.type === "text_delta"),
      );
      expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    }
  });

  it("assembles two parallel tool calls from argument fragments", async () => {
    const readArgs = { path: "src/index.ts", offset: 10, limit: 200 };
    const { provider } = await setup([
      {
        text: "Let me look.",
        tool_calls: [
          { id: "call_read", name: "read_file", arguments: readArgs },
          { id: "call_term", name: "terminal", arguments: '{"command":"ls -la /tmp"}' },
        ],
      },
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(only(events, "text_delta").map((e) => e.text).join("")).toBe("Let me look.");
    expect(only(events, "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_read", name: "read_file" },
      { type: "tool_call_start", index: 1, id: "call_term", name: "terminal" },
    ]);
    const deltas = only(events, "tool_call_delta");
    expect(deltas.filter((d) => d.index === 0).length).toBeGreaterThan(1);
    expect(deltas.filter((d) => d.index === 0).map((d) => d.argumentsDelta).join("")).toBe(JSON.stringify(readArgs));
    const ends = only(events, "tool_call_end");
    expect(ends).toEqual([
      { type: "tool_call_end", index: 0, id: "call_read", name: "read_file", arguments: JSON.stringify(readArgs) },
      { type: "tool_call_end", index: 1, id: "call_term", name: "terminal", arguments: '{"command":"ls -la /tmp"}' },
    ]);
    const lastDelta = events.map((e) => e.type).lastIndexOf("tool_call_delta");
    expect(events.findIndex((e) => e.type === "tool_call_end")).toBeGreaterThan(lastDelta);
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls" });
  });

  it("gives a tool call without an id a generated one", async () => {
    const { provider } = await setup([{ tool_calls: [{ id: "", name: "todo", arguments: {} }] }]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    const [start] = only(events, "tool_call_start");
    const [end] = only(events, "tool_call_end");
    expect(start?.id).toMatch(/^call_[0-9a-f]{8,}$/);
    expect(end).toMatchObject({ id: start?.id, name: "todo", arguments: "{}" });
  });

  it("sends the model, wire-shaped messages, tools and stream options", async () => {
    const { server, provider } = await setup([{ text: "ok" }], { headers: { "X-Title": "hermes" } });
    const full: ModelRequest = {
      model: "vendor/model-x",
      maxTokens: 512,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "list files" },
        {
          role: "assistant",
          content: null,
          reasoning: "private thoughts",
          finish_reason: "tool_calls",
          tool_calls: [{ id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } }],
        },
        { role: "tool", tool_call_id: "c1", name: "terminal", content: "a.txt" },
        { role: "assistant", content: "There is a.txt", reasoning: "easy", finish_reason: "stop" },
      ],
      tools: [{ name: "terminal", description: "Run a command", parameters: { type: "object", properties: {} } }],
    };
    const events = await collect(provider.stream(full, new AbortController().signal));
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    expect(server.requests).toHaveLength(1);
    const received = server.requests[0]!;
    expect(received.path).toBe("/v1/chat/completions");
    expect(received.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received.headers["x-title"]).toBe("hermes");
    expect(received.body).toMatchObject({
      model: "vendor/model-x",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 512,
    });
    expect(received.body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "list files" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "a.txt" },
      { role: "assistant", content: "There is a.txt" },
    ]);
    expect(received.body.tools).toEqual([
      {
        type: "function",
        function: { name: "terminal", description: "Run a command", parameters: { type: "object", properties: {} } },
      },
    ]);
  });

  it("classifies HTTP errors and never shows the API key", async () => {
    const { server, provider } = await setup([
      { status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}` } } },
      { status: 429, headers: { "retry-after": "7" }, body: { error: { message: "Slow down" } } },
      { status: 500 },
      { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens." } } },
      { status: 400, body: { error: { message: "Unknown parameter 'foo'" } } },
      { status: 413, body: "request entity too large" },
      { status: 503, headers: { "retry-after": new Date(Date.now() + 60_000).toUTCString() } },
    ]);
    const errors: ProviderEvent[] = [];
    while (server.remaining() > 0) errors.push(...(await collect(provider.stream(request, new AbortController().signal))));
    expect(errors.every((e) => e.type === "error")).toBe(true);
    const [auth, rate, server500, overflow, bad, tooLarge, unavailable] = errors as Extract<ProviderEvent, { type: "error" }>[];
    expect(auth).toMatchObject({ kind: "auth", status: 401 });
    expect(auth?.message).toContain("401");
    expect(auth?.message).toContain("Incorrect API key provided");
    expect(rate).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 7000 });
    expect(rate?.message).toContain("Slow down");
    expect(server500).toMatchObject({ kind: "server", status: 500 });
    expect(server500?.message).toContain("fake-llm: HTTP 500");
    expect(overflow).toMatchObject({ kind: "context_overflow", status: 400 });
    expect(bad).toMatchObject({ kind: "bad_request", status: 400 });
    expect(tooLarge).toMatchObject({ kind: "payload_too_large", status: 413 });
    expect(tooLarge?.message).toContain("request entity too large");
    expect(unavailable).toMatchObject({ kind: "server", status: 503 });
    expect(unavailable?.retryAfterMs).toBeGreaterThan(0);
    for (const error of errors as Extract<ProviderEvent, { type: "error" }>[]) {
      expect(error.message).not.toContain(API_KEY);
      expect(error.message).not.toContain("\n");
    }
  });

  it("reports an exhausted script as a server error", async () => {
    const { provider } = await setup([]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events).toEqual([
      expect.objectContaining({ type: "error", kind: "server", status: 500, message: expect.stringContaining("script exhausted") }),
    ]);
  });

  it("reports a refused connection as a network error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const provider = createOpenAiChatProvider({ id: "down", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY });
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events).toEqual([expect.objectContaining({ type: "error", kind: "network" })]);
  });

  it("reports a cut stream, an in-stream error and a dropped socket", async () => {
    const chunk = (delta: object): string =>
      `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    const behaviours = ["cut", "error", "drop"];
    const raw = createServer((req, res) => {
      req.resume();
      const behaviour = behaviours.shift();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant", content: "partial" }));
      if (behaviour === "cut") res.end();
      if (behaviour === "error") res.end(`data: ${JSON.stringify({ error: { message: "overloaded", code: 502 } })}\n\n`);
      if (behaviour === "drop") setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const { port } = raw.address() as AddressInfo;
    const provider = createOpenAiChatProvider({ id: "raw", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY });
    try {
      const results: ProviderEvent[][] = [];
      for (let i = 0; i < 3; i++) results.push(await collect(provider.stream(request, new AbortController().signal)));
      for (const events of results) expect(events[0]).toEqual({ type: "text_delta", text: "partial" });
      expect(results[0]?.slice(1)).toEqual([expect.objectContaining({ type: "error", kind: "network" })]);
      expect(results[1]?.slice(1)).toEqual([expect.objectContaining({ type: "error", kind: "server", status: 502 })]);
      expect(results[2]?.slice(1)).toEqual([expect.objectContaining({ type: "error", kind: "network" })]);
    } finally {
      raw.closeAllConnections();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it("ends promptly with an aborted error when cancelled mid-stream", async () => {
    const { server, provider } = await setup([
      { text: "first second third", chunks: ["first", " second", " third"], delayMs: 120_000 },
    ]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream(request, controller.signal)) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(events).toEqual([
      { type: "text_delta", text: "first" },
      { type: "error", kind: "aborted", message: expect.any(String) },
    ]);
    await vi.waitFor(() => expect(server.inFlight()).toBe(0));
  });

  it("answers an already-aborted signal without calling the server", async () => {
    const { server, provider } = await setup([{ text: "never" }]);
    const events = await collect(provider.stream(request, AbortSignal.abort()));
    expect(events).toEqual([{ type: "error", kind: "aborted", message: expect.any(String) }]);
    expect(server.requests).toHaveLength(0);
  });

  it("ends with a timeout error when the stream goes silent", async () => {
    const { provider } = await setup([{ text: "a b", chunks: ["a", " b"], delayMs: 120_000 }], { idleTimeoutMs: 50 });
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events).toEqual([
      { type: "text_delta", text: "a" },
      expect.objectContaining({ type: "error", kind: "timeout" }),
    ]);
  });
});

describe("parseRetryAfterMs", () => {
  it("reads seconds, milliseconds and HTTP dates", () => {
    expect(parseRetryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfterMs(new Headers({ "retry-after": "1.5" }))).toBe(1500);
    expect(parseRetryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 1970 00:00:00 GMT" }))).toBe(0);
    expect(parseRetryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
  });
});
