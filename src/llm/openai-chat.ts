/**
 * Provider for OpenAI-compatible chat-completions endpoints (OpenAI, OpenRouter, local servers…),
 * over the official `openai` package, which is loaded on first use so start-up does not pay for it.
 */
import { randomUUID } from "node:crypto";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { abortedEvent, openGuardedCall } from "./guarded-stream.js";
import { classifyOpenAiError, lazyOpenAiClient, type LoadedOpenAi, type OpenAiChatProviderOptions } from "./openai-client.js";
import { redactor } from "./provider-errors.js";
import type {
  ChatMessage,
  FinishReason,
  ModelRequest,
  Provider,
  ProviderEvent,
  TokenUsage,
} from "./types.js";

type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;
type WireToolCall = ChatCompletionChunk.Choice.Delta.ToolCall;

export type { OpenAiChatProviderOptions } from "./openai-client.js";

export { parseRetryAfterMs } from "./provider-errors.js";

/**
 * Creates a chat-completions provider. The client is created once, on the first `stream` call, with the
 * SDK's own retries off (the agent loop owns retries). `stream` follows the `Provider` contract: it never
 * throws; it ends with exactly one `done` or `error` event; tool-call ends come after the last delta, in
 * index order, followed by `usage` (when the server sent it) and `done`.
 */
export function createOpenAiChatProvider(options: OpenAiChatProviderOptions): Provider {
  const load = lazyOpenAiClient(options);
  return {
    id: options.id,
    stream: (request, signal) => streamChat(options, load, request, signal),
  };
}

async function* streamChat(
  options: OpenAiChatProviderOptions,
  load: () => Promise<LoadedOpenAi>,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const redact = redactor(options.apiKey);
  const opened = await openGuardedCall<LoadedOpenAi, ChatCompletionChunk>(options, "openai", load, signal, redact);
  if ("failure" in opened) {
    yield opened.failure;
    return;
  }
  const { loaded, guard } = opened;
  const calls = new ToolCallAssembler();
  let usage: TokenUsage | undefined;
  let finishReason: string | undefined;
  let failure: ErrorEvent | undefined;
  const classify = (error: unknown): ErrorEvent => classifyOpenAiError(error, loaded.mod, options.id, redact);

  try {
    const body = toWireRequest(request, isOpenRouter(options.baseUrl));
    for await (const chunk of guard.chunks((own) => loaded.client.chat.completions.create(body, { signal: own }))) {
      if (chunk.usage) usage = toUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & Record<string, unknown>;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") yield { type: "reasoning_delta", text: reasoning };
      if (typeof delta.content === "string" && delta.content !== "") yield { type: "text_delta", text: delta.content };
      for (const call of delta.tool_calls ?? []) yield* calls.accept(call);
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    failure = guard.failure(options.id, finishReason !== undefined, classify);
  } catch (error) {
    failure = signal.aborted ? abortedEvent() : classify(error);
  }

  if (failure) {
    yield failure;
    return;
  }
  yield* calls.finish();
  if (usage) yield { type: "usage", usage };
  yield { type: "done", finishReason: toFinishReason(finishReason ?? "stop", calls.size > 0) };
}


function isOpenRouter(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.endsWith("openrouter.ai");
  } catch {
    return false;
  }
}

function toWireRequest(request: ModelRequest, openRouter: boolean): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: request.messages.map(toWireMessage),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.reasoningEffort) Object.assign(body, reasoningFields(request.reasoningEffort, openRouter));
  // OpenRouter's usage accounting: the final chunk's usage carries `cost`
  if (openRouter) Object.assign(body, { usage: { include: true } });
  return body;
}

/** The wire shape of one history message; our own `reasoning` and `finish_reason` fields stay home. */
function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    case "assistant": {
      if (!message.tool_calls || message.tool_calls.length === 0) return { role: "assistant", content: message.content };
      const toolCalls = message.tool_calls.map((call) => ({
        id: call.id,
        type: "function" as const,
        function: { name: call.function.name, arguments: call.function.arguments },
      }));
      return { role: "assistant", content: message.content, tool_calls: toolCalls };
    }
  }
}

function toUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): TokenUsage {
  const result: TokenUsage = {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    totalTokens: usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
  };
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof reasoning === "number") result.reasoningTokens = reasoning;
  if (typeof cached === "number") result.cachedTokens = cached;
  // OpenRouter (and some gateways) report what the call cost, in USD credits
  const cost = (usage as { cost?: unknown }).cost;
  if (typeof cost === "number" && Number.isFinite(cost) && cost >= 0) result.costUsd = cost;
  return result;
}

/** Maps the wire finish reason; a call that produced tool calls reports `tool_calls` unless cut by length or filter. */
function toFinishReason(reason: string, hasToolCalls: boolean): FinishReason {
  if (reason === "length") return "length";
  if (reason === "content_filter") return "content_filter";
  if (hasToolCalls || reason === "tool_calls" || reason === "function_call") return "tool_calls";
  return reason === "stop" ? "stop" : "unknown";
}

interface PendingCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
  started: boolean;
}

/**
 * Assembles streamed tool calls by `index`. `tool_call_start` is emitted once a call's name is known
 * (with any arguments received before it as one delta), `tool_call_delta` per later fragment, and
 * `finish` emits `tool_call_end` for every call in index order. A call without an id gets `call_<random>`.
 */
class ToolCallAssembler {
  private readonly calls = new Map<number, PendingCall>();

  get size(): number {
    return this.calls.size;
  }

  *accept(wire: WireToolCall): Generator<ProviderEvent> {
    const index = this.indexOf(wire);
    let call = this.calls.get(index);
    if (!call) {
      call = { index, id: "", name: "", arguments: "", started: false };
      this.calls.set(index, call);
    }
    if (wire.id && !call.id) call.id = wire.id;
    if (wire.function?.name && !call.name) call.name = wire.function.name;
    const fragment = typeof wire.function?.arguments === "string" ? wire.function.arguments : "";
    call.arguments += fragment;
    if (!call.started) {
      if (!call.name) return;
      yield this.start(call);
      if (call.arguments !== "") yield { type: "tool_call_delta", index, argumentsDelta: call.arguments };
    } else if (fragment !== "") {
      yield { type: "tool_call_delta", index, argumentsDelta: fragment };
    }
  }

  *finish(): Generator<ProviderEvent> {
    for (const call of [...this.calls.values()].sort((a, b) => a.index - b.index)) {
      if (!call.started) yield this.start(call);
      yield { type: "tool_call_end", index: call.index, id: call.id, name: call.name, arguments: call.arguments };
    }
  }

  private start(call: PendingCall): ProviderEvent {
    call.started = true;
    call.id ||= `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    return { type: "tool_call_start", index: call.index, id: call.id, name: call.name };
  }

  /** The wire index; some servers omit it, or reuse index 0 for parallel calls with distinct ids. */
  private indexOf(wire: WireToolCall): number {
    const known = [...this.calls.values()];
    if (wire.id) {
      const same = known.find((call) => call.id === wire.id);
      if (same) return same.index;
    }
    const nextFree = known.reduce((max, call) => Math.max(max, call.index + 1), 0);
    if (typeof wire.index !== "number") return wire.id || known.length === 0 ? nextFree : nextFree - 1;
    const existing = this.calls.get(wire.index);
    if (existing && wire.id && existing.id && existing.id !== wire.id) return nextFree;
    return wire.index;
  }
}


/**
 * The request fields that carry a reasoning effort: OpenRouter's unified `reasoning` object, or
 * OpenAI's `reasoning_effort` (where `none` is sent as `minimal`, the lowest level it accepts).
 */
function reasoningFields(effort: NonNullable<ModelRequest["reasoningEffort"]>, openRouter: boolean): Record<string, unknown> {
  if (openRouter) return { reasoning: effort === "none" ? { enabled: false } : { effort } };
  return { reasoning_effort: effort === "none" ? "minimal" : effort };
}
