/**
 * The Responses API and Messages API providers against a server that sends well-framed SSE with
 * garbage inside: events that are not objects, fields missing or of the wrong type. Every stream
 * still ends with exactly one `done` or `error`, and every event it emits has the shape the
 * `ProviderEvent` type promises (strings are strings, counts are numbers ≥ 0).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "./anthropic.js";
import { createOpenAiResponsesProvider } from "./openai-responses.js";
import type { Provider, ProviderEvent } from "./types.js";

const API_KEY = "sk-hostile-test-secret-4242";
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves `frames` (event name, data: JSON-encoded unless a string) as one SSE body to every POST. */
async function serve(frames: [string, unknown][]): Promise<string> {
  const body = frames.map(([event, data]) => `event: ${event}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`).join("");
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(body);
    });
  });
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

async function run(provider: Provider, model: string): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  const request = { model, reasoningEffort: "low" as const, messages: [{ role: "user" as const, content: "hi" }] };
  for await (const event of provider.stream(request, new AbortController().signal)) events.push(event);
  return events;
}

const isCount = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value) && value >= 0;

/** Every event has the fields its type promises, with the right types; exactly one terminal event, last. */
function expectWellFormed(events: ProviderEvent[]): void {
  const terminal = events.filter((event) => event.type === "done" || event.type === "error");
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
  for (const event of events) {
    switch (event.type) {
      case "text_delta":
      case "reasoning_delta":
        expect(typeof event.text, JSON.stringify(event)).toBe("string");
        break;
      case "tool_call_start":
        expect([typeof event.id, typeof event.name], JSON.stringify(event)).toEqual(["string", "string"]);
        break;
      case "tool_call_delta":
        expect(typeof event.argumentsDelta, JSON.stringify(event)).toBe("string");
        break;
      case "tool_call_end":
        expect([typeof event.id, typeof event.name, typeof event.arguments], JSON.stringify(event)).toEqual(["string", "string", "string"]);
        break;
      case "usage":
        for (const value of Object.values(event.usage)) expect(isCount(value), JSON.stringify(event)).toBe(true);
        break;
      case "reasoning_item":
        for (const part of event.item.summary) expect(typeof part.text).toBe("string");
        break;
      case "reasoning_detail":
        if (event.detail.type === "thinking") expect([typeof event.detail.thinking, typeof event.detail.signature]).toEqual(["string", "string"]);
        else expect(typeof event.detail.data).toBe("string");
        break;
      case "error":
        expect(event.message).not.toContain(API_KEY);
        expect(event.message).not.toMatch(/Cannot read properties|is not a function|undefined \(reading/);
        break;
      default:
        break;
    }
  }
}

const completed = ["response.completed", { type: "response.completed", response: { usage: { input_tokens: 3, output_tokens: 2 } } }] as [string, unknown];

describe("openai-responses provider against garbage events", () => {
  const responses = async (frames: [string, unknown][]): Promise<ProviderEvent[]> => {
    const baseUrl = await serve(frames);
    return run(createOpenAiResponsesProvider({ id: "openai", baseUrl: `${baseUrl}/v1`, apiKey: API_KEY }), "gpt-5-mini");
  };

  it("skips deltas that are not strings", async () => {
    const events = await responses([
      ["response.output_text.delta", { type: "response.output_text.delta", delta: { text: "x" } }],
      ["response.output_text.delta", { type: "response.output_text.delta", delta: 5 }],
      ["response.reasoning_summary_text.delta", { type: "response.reasoning_summary_text.delta", item_id: "rs", delta: [1] }],
      ["response.output_text.delta", { type: "response.output_text.delta", delta: "ok" }],
      completed,
    ]);
    expectWellFormed(events);
    expect(events.filter((event) => event.type === "text_delta")).toEqual([{ type: "text_delta", text: "ok" }]);
  });

  it("gives a function call without name or call_id string fields, and drops argument fragments that are not strings", async () => {
    const events = await responses([
      ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { type: "function_call", arguments: 3 } }],
      ["response.function_call_arguments.delta", { type: "response.function_call_arguments.delta", output_index: 0, delta: 7 }],
      ["response.function_call_arguments.delta", { type: "response.function_call_arguments.delta", output_index: 0, delta: "{}" }],
      completed,
    ]);
    expectWellFormed(events);
    expect(events.find((event) => event.type === "tool_call_end")).toMatchObject({ name: "", arguments: "{}" });
  });

  it("reads usage counts that are not numbers ≥ 0 as absent", async () => {
    const usage = { input_tokens: "12", output_tokens: -4, total_tokens: null, input_tokens_details: { cached_tokens: "x" } };
    const events = await responses([["response.completed", { type: "response.completed", response: { usage } }]]);
    expectWellFormed(events);
    expect(events[0]).toEqual({ type: "usage", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } });
  });

  it("keeps a reasoning item without a summary array, dropping parts without text", async () => {
    const events = await responses([
      ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "rs_1", encrypted_content: 9 } }],
      ["response.output_item.done", { type: "response.output_item.done", output_index: 1, item: { type: "reasoning", id: "rs_2", summary: [null, { text: 4 }, { type: "summary_text", text: "kept" }] } }],
      ["response.output_item.done", { type: "response.output_item.done", output_index: 2 }],
      completed,
    ]);
    expectWellFormed(events);
    expect(events.filter((event) => event.type === "reasoning_item").map((event) => event.item)).toEqual([
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "reasoning", id: "rs_2", summary: [{ type: "summary_text", text: "kept" }] },
    ]);
  });

  it("ends with a classified server error for response.failed without a response, or with an error of odd shape", async () => {
    for (const failed of [{ type: "response.failed" }, { type: "response.failed", response: { error: "boom" } }, { type: "response.failed", response: { error: { code: 5, message: { m: 1 } } } }]) {
      const events = await responses([["response.failed", failed]]);
      expectWellFormed(events);
      expect(events).toEqual([{ type: "error", kind: "server", message: "openai: stream error: the response failed" }]);
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    }
  });

  it("skips events that are not objects and reports the stream cut when nothing finishes it", async () => {
    const events = await responses([
      ["response.created", "null"],
      ["response.created", "42"],
      ["response.output_text.delta", { type: "response.output_text.delta", delta: "partial" }],
    ]);
    expectWellFormed(events);
    expect(events.at(-1)).toMatchObject({ type: "error", kind: "network" });
  });

  it("names the error of an error event without a message", async () => {
    const events = await responses([["error", { type: "error", code: 17 }]]);
    expectWellFormed(events);
    expect(events).toEqual([{ type: "error", kind: "server", message: "openai: stream error: the server reported an error" }]);
  });
});

describe("anthropic provider against garbage events", () => {
  const anthropic = async (frames: [string, unknown][]): Promise<ProviderEvent[]> => {
    const baseUrl = await serve(frames);
    return run(createAnthropicProvider({ id: "anthropic", baseUrl, apiKey: API_KEY }), "claude-opus-4-6");
  };
  const start = ["message_start", { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } }] as [string, unknown];
  const stop = (reason: unknown): [string, unknown] => ["message_delta", { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 2 } }];

  it("skips thinking, signature, text and JSON fragments that are not strings", async () => {
    const events = await anthropic([
      start,
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: 1, signature: {} } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: 5 } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: ["s"] } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "real" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: 3 } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: null } }],
      ["content_block_start", { type: "content_block_start", index: 2, content_block: { type: "tool_use", input: {} } }],
      ["content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: 7 } }],
      stop("tool_use"),
    ]);
    expectWellFormed(events);
    expect(events.filter((event) => event.type === "reasoning_delta").map((event) => event.text)).toEqual(["real"]);
    expect(events.find((event) => event.type === "reasoning_detail")).toEqual({ type: "reasoning_detail", detail: { type: "thinking", thinking: "real", signature: "sig" } });
    expect(events.find((event) => event.type === "tool_call_end")).toMatchObject({ name: "", arguments: "{}" });
  });

  it("skips blocks and deltas that are missing, and a stop reason that is not a string", async () => {
    const events = await anthropic([
      ["message_start", { type: "message_start" }],
      ["content_block_start", { type: "content_block_start", index: 0 }],
      ["content_block_delta", { type: "content_block_delta", index: 0 }],
      ["message_delta", { type: "message_delta" }],
      stop(42),
    ]);
    expectWellFormed(events);
    expect(events.at(-1)).toMatchObject({ type: "error", kind: "network" });
  });

  it("reads usage counts that are not numbers ≥ 0 as absent", async () => {
    const events = await anthropic([
      ["message_start", { type: "message_start", message: { usage: { input_tokens: -3, output_tokens: 1e400, cache_read_input_tokens: "9" } } }],
      stop("end_turn"),
    ]);
    expectWellFormed(events);
    expect(events.find((event) => event.type === "usage")).toEqual({ type: "usage", usage: { inputTokens: 0, outputTokens: 2, totalTokens: 2 } });
  });
});
