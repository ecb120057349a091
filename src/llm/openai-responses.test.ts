import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeResponses, type FakeResponses, type ResponsesStep } from "../../test/support/fake-responses.js";
import { createOpenAiResponsesProvider, type OpenAiResponsesProviderOptions } from "./openai-responses.js";
import type { ChatMessage, ModelRequest, Provider, ProviderEvent, ResponsesReasoningItem } from "./types.js";

const API_KEY = "sk-responses-test-secret-5678";
let server: FakeResponses | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(steps: ResponsesStep[], options: Partial<OpenAiResponsesProviderOptions> = {}): Promise<{ fake: FakeResponses; provider: Provider }> {
  server = await startFakeResponses(steps);
  const provider = createOpenAiResponsesProvider({ id: "openai", baseUrl: server.baseUrl, apiKey: API_KEY, ...options });
  return { fake: server, provider };
}

const SYSTEM = "You are Hermes, a coding agent.";
const request: ModelRequest = {
  model: "gpt-5-mini",
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: "hi" },
  ],
};

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function only<T extends ProviderEvent["type"]>(events: ProviderEvent[], type: T): Extract<ProviderEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ProviderEvent, { type: T }> => event.type === type);
}

const run = (provider: Provider, req: ModelRequest = request): Promise<ProviderEvent[]> => collect(provider.stream(req, new AbortController().signal));

/** The assistant message the agent loop would store from `events`. */
function assistantFrom(events: ProviderEvent[]): Extract<ChatMessage, { role: "assistant" }> {
  const text = only(events, "text_delta").map((e) => e.text).join("");
  const calls = only(events, "tool_call_end").map((e) => ({ id: e.id, type: "function" as const, function: { name: e.name, arguments: e.arguments } }));
  const items = only(events, "reasoning_item").map((e) => e.item);
  return { role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}), ...(items.length ? { codex_reasoning_items: items } : {}) };
}

describe("openai-responses provider: streaming", () => {
  it("streams text deltas, then usage, then done; sends a stateless request with the system prompt as instructions", async () => {
    const { fake, provider } = await setup([{ text: "The quick brown fox jumps over the lazy dog" }]);
    const events = await run(provider);
    const deltas = only(events, "text_delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.text).join("")).toBe("The quick brown fox jumps over the lazy dog");
    expect(events.slice(-2)).toEqual([
      { type: "usage", usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedTokens: 0, reasoningTokens: 0 } },
      { type: "done", finishReason: "stop" },
    ]);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body).toEqual({
      model: "gpt-5-mini",
      instructions: SYSTEM,
      input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
      store: false,
      stream: true,
    });
  });

  it("routes reasoning summaries to reasoning deltas, parts separated, before the answer", async () => {
    const { provider } = await setup([{ reasoning: { summary: ["Weighing both options.", "B is simpler."] }, text: "Option B." }]);
    const events = await run(provider);
    expect(only(events, "reasoning_delta").map((e) => e.text).join("")).toBe("Weighing both options.\n\nB is simpler.");
    expect(only(events, "text_delta").map((e) => e.text).join("")).toBe("Option B.");
    expect(events.findIndex((e) => e.type === "reasoning_delta")).toBeLessThan(events.findIndex((e) => e.type === "text_delta"));
    expect(only(events, "reasoning_item")).toEqual([
      { type: "reasoning_item", item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Weighing both options." }, { type: "summary_text", text: "B is simpler." }] } },
    ]);
  });

  it("assembles function calls from argument deltas into tool-call start / delta / end, in output order", async () => {
    const { provider } = await setup([
      {
        text: "Reading both.",
        toolCalls: [
          { id: "call_a", name: "read_file", arguments: { path: "src/a.ts", offset: 10 } },
          { id: "call_b", name: "search_files", arguments: { pattern: "TODO" } },
        ],
      },
    ]);
    const events = await run(provider);
    expect(only(events, "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_a", name: "read_file" },
      { type: "tool_call_start", index: 1, id: "call_b", name: "search_files" },
    ]);
    const fragments = only(events, "tool_call_delta").filter((e) => e.index === 0);
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.map((e) => e.argumentsDelta).join("")).toBe('{"path":"src/a.ts","offset":10}');
    expect(only(events, "tool_call_end").map((e) => [e.index, e.id, e.name, JSON.parse(e.arguments)])).toEqual([
      [0, "call_a", "read_file", { path: "src/a.ts", offset: 10 }],
      [1, "call_b", "search_files", { pattern: "TODO" }],
    ]);
    const types = events.map((e) => e.type);
    expect(types.indexOf("tool_call_end")).toBeGreaterThan(types.lastIndexOf("tool_call_delta"));
    expect(types.slice(-4)).toEqual(["usage", "tool_call_end", "tool_call_end", "done"]);
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls" });
  });

  it("reports usage with cached and reasoning tokens", async () => {
    const { provider } = await setup([{ text: "ok", usage: { input_tokens: 1200, output_tokens: 300, cached_tokens: 1024, reasoning_tokens: 256 } }]);
    expect(only(await run(provider), "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500, cachedTokens: 1024, reasoningTokens: 256 } },
    ]);
  });

  it.each([
    ["max_output_tokens", "length"],
    ["content_filter", "content_filter"],
  ] as const)("maps response.incomplete (%s) to %s, usage included", async (reason, finishReason) => {
    const { provider } = await setup([{ text: "partial answer", incomplete: reason, usage: { output_tokens: 64 } }]);
    const events = await run(provider);
    expect(only(events, "usage")[0]?.usage.outputTokens).toBe(64);
    expect(events.at(-1)).toEqual({ type: "done", finishReason });
  });

  it("reports a function call cut by max_output_tokens as length, so it is never run", async () => {
    const { provider } = await setup([{ toolCalls: [{ name: "write_file", arguments: '{"path":"a.ts","content":"unfin' }], incomplete: "max_output_tokens" }]);
    expect((await run(provider)).at(-1)).toEqual({ type: "done", finishReason: "length" });
  });
});

describe("openai-responses provider: what the server receives", () => {
  it("emits the encrypted reasoning item and sends it back, before the call it led to, on the next request", async () => {
    const { fake, provider } = await setup([
      { reasoning: { summary: ["Need to read the file first."], encrypted: "gAAAA-opaque-1" }, toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.txt" } }] },
      { reasoning: { summary: ["The file answers it."], encrypted: "gAAAA-opaque-2" }, text: "It says: buy milk." },
    ]);
    const tools = [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    const first: ModelRequest = { ...request, tools, reasoningEffort: "medium" };
    const firstEvents = await run(provider, first);
    const item: ResponsesReasoningItem = { type: "reasoning", id: "rs_1", encrypted_content: "gAAAA-opaque-1", summary: [{ type: "summary_text", text: "Need to read the file first." }] };
    expect(only(firstEvents, "reasoning_item")).toEqual([{ type: "reasoning_item", item }]);
    const types = firstEvents.map((e) => e.type);
    expect(types.indexOf("reasoning_item")).toBeLessThan(types.indexOf("tool_call_start"));

    const history: ChatMessage[] = [...first.messages, assistantFrom(firstEvents), { role: "tool", tool_call_id: "call_read", content: "buy milk" }];
    const secondEvents = await run(provider, { ...first, messages: history });
    expect(secondEvents.at(-1)).toEqual({ type: "done", finishReason: "stop" });

    const [one, two] = fake.responseBodies();
    for (const body of [one, two]) {
      expect(body.instructions).toBe(SYSTEM);
      expect(body.store).toBe(false);
      expect(body).not.toHaveProperty("previous_response_id");
      expect(body.reasoning).toEqual({ effort: "medium", summary: "auto" });
      expect(body.include).toEqual(["reasoning.encrypted_content"]);
      expect(body.tools).toEqual([{ type: "function", name: "read_file", description: "Read a file", parameters: tools[0]!.parameters, strict: false }]);
    }
    expect(two.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "hi" }] },
      { type: "reasoning", id: "rs_1", encrypted_content: "gAAAA-opaque-1", summary: [{ type: "summary_text", text: "Need to read the file first." }] },
      { type: "function_call", call_id: "call_read", name: "read_file", arguments: '{"path":"notes.txt"}' },
      { type: "function_call_output", call_id: "call_read", output: "buy milk" },
    ]);
  });

  it("maps user images, assistant text, output caps and temperature; drops reasoning items it cannot send back", async () => {
    const { fake, provider } = await setup([{ text: "A button." }]);
    const messages: ChatMessage[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: "Hello" },
      {
        role: "assistant",
        content: "Hi there.",
        reasoning: "private thoughts",
        codex_reasoning_items: [
          { type: "reasoning", id: "rs_gone", summary: [{ type: "summary_text", text: "no encrypted content" }] },
          { type: "reasoning", encrypted_content: "gAAAA-kept", summary: [] },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "And this screenshot?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
    ];
    const events = await run(provider, { model: "gpt-5", messages, maxTokens: 2048, temperature: 0.2, reasoningEffort: "none" });
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    const [body] = fake.responseBodies();
    expect(body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "Hello" }] },
      { type: "reasoning", encrypted_content: "gAAAA-kept", summary: [] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Hi there." }] },
      {
        role: "user",
        content: [
          { type: "input_text", text: "And this screenshot?" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        ],
      },
    ]);
    expect(body).toMatchObject({ max_output_tokens: 2048, temperature: 0.2, reasoning: { effort: "minimal", summary: "auto" } });
  });

  it("asks for no reasoning fields without a reasoning effort, and keeps items without encrypted content out of the next request", async () => {
    const { fake, provider } = await setup([{ reasoning: { summary: ["thinking"] }, text: "first" }, { text: "second" }]);
    const firstEvents = await run(provider);
    expect(only(firstEvents, "reasoning_item")[0]?.item).not.toHaveProperty("encrypted_content");
    await run(provider, { ...request, messages: [...request.messages, assistantFrom(firstEvents), { role: "user", content: "again" }] });
    const [one, two] = fake.responseBodies();
    expect(one).not.toHaveProperty("reasoning");
    expect(one).not.toHaveProperty("include");
    expect(two.input.map((item: { type?: string; role?: string }) => item.type ?? item.role)).toEqual(["user", "message", "user"]);
  });
});

describe("openai-responses provider: failures", () => {
  it("classifies a 429 with Retry-After as rate_limit, with the delay", async () => {
    const { provider } = await setup([{ status: 429, errorType: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for gpt-5-mini", headers: { "retry-after": "3" } }]);
    const events = await run(provider);
    expect(events).toEqual([{ type: "error", kind: "rate_limit", status: 429, retryAfterMs: 3000, message: "openai: HTTP 429: Rate limit reached for gpt-5-mini" }]);
  });

  it.each([
    [500, "The server had an error while processing your request.", "server"],
    [400, "Your input exceeds the context window of this model. Please adjust your input and try again.", "context_overflow"],
    [400, "Invalid value for 'input[2].type'.", "bad_request"],
    [401, "Incorrect API key provided.", "auth"],
  ])("classifies HTTP %i (%s) as %s", async (status, message, kind) => {
    const { provider } = await setup([{ status, message }]);
    const events = await run(provider);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", kind, status });
  });

  it.each([
    [{ failed: { code: "server_error", message: "An error occurred while processing your request." } }, "server", "openai: stream error (server_error): An error occurred while processing your request."],
    [{ failed: { code: "context_length_exceeded", message: "Your input exceeds the context window of this model." } }, "context_overflow", undefined],
    [{ failed: { code: "rate_limit_exceeded", message: "Rate limit reached." } }, "rate_limit", undefined],
    [{ streamError: { code: "invalid_prompt", message: "Invalid prompt." } }, "bad_request", "openai: stream error (invalid_prompt): Invalid prompt."],
    [{ streamError: { code: null, message: "The model produced invalid content." } }, "server", undefined],
  ] as const)("classifies an in-stream failure %j as %s, after the text already sent, with no done", async (ending, kind, message) => {
    const { provider } = await setup([{ text: "Half an answer", ...ending }]);
    const events = await run(provider);
    expect(only(events, "text_delta").map((e) => e.text).join("")).toBe("Half an answer");
    expect(events.at(-1)).toMatchObject({ type: "error", kind, ...(message ? { message } : {}) });
    expect(only(events, "done")).toHaveLength(0);
    expect(only(events, "error")).toHaveLength(1);
  });

  it("never puts the API key in an error message", async () => {
    const { provider } = await setup([{ status: 401, message: `Incorrect API key provided: ${API_KEY}` }, { text: "x", failed: { code: "server_error", message: `key ${API_KEY}` } }]);
    const [http] = await run(provider);
    const inStream = (await run(provider)).at(-1);
    for (const event of [http, inStream]) {
      expect(event?.type).toBe("error");
      expect((event as { message: string }).message).not.toContain(API_KEY);
    }
  });

  it("reports a stream cut mid-way as a network error, with no done and no tool-call end", async () => {
    const { provider } = await setup([{ text: "one two three four five six seven eight", toolCalls: [{ name: "x", arguments: { a: 1 } }], cutAfterDeltas: 3 }]);
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
    const provider = createOpenAiResponsesProvider({ id: "openai", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY });
    const events = await run(provider);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", kind: "network" });
  });

  it("ends promptly with an aborted error when the caller aborts mid-stream, and drops the connection", async () => {
    const { fake, provider } = await setup([{ text: "a long answer that would take a while to stream in full", delayMs: 5 }]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream(request, controller.signal)) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(events.at(-1)).toEqual({ type: "error", kind: "aborted", message: "request aborted" });
    expect(only(events, "error")).toHaveLength(1);
    expect(only(events, "done")).toHaveLength(0);
    while (fake.inFlight() > 0) await new Promise((resolve) => setImmediate(resolve));
  });

  it("ends with a timeout error when the stream goes silent longer than idleTimeoutMs", async () => {
    const { provider } = await setup([{ stall: true }], { idleTimeoutMs: 50, connectTimeoutMs: 60_000 });
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
