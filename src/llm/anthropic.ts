/**
 * Provider for Anthropic's native Messages API (api.anthropic.com and Anthropic-compatible
 * endpoints), over `@anthropic-ai/sdk`, which is loaded on first use so start-up does not pay for it.
 */
import { randomUUID } from "node:crypto";
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { addCacheBreakpoints, toAnthropicConversation, toAnthropicTools } from "./anthropic-messages.js";
import { thinkingParams } from "./anthropic-thinking.js";
import { abortedEvent, connectTimeoutMs, openGuardedCall, sdkTimeoutMs, type WireProviderOptions } from "./guarded-stream.js";
import { classifySdkError, CONTEXT_OVERFLOW, redactor } from "./provider-errors.js";
import type { FinishReason, ModelRequest, Provider, ProviderErrorKind, ProviderEvent, ReasoningDetail, TokenUsage } from "./types.js";
import { httpFetch } from "./http-fetch.js";

type AnthropicModule = typeof import("@anthropic-ai/sdk");
type AnthropicClient = InstanceType<AnthropicModule["Anthropic"]>;
type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;
type Loaded = { mod: AnthropicModule; client: AnthropicClient };

/** `baseUrl`: `https://api.anthropic.com`, or an Anthropic-compatible base such as `https://host/anthropic`; a trailing `/v1` is dropped. */
export interface AnthropicProviderOptions extends WireProviderOptions {
  /** Prompt-cache breakpoints on the system prompt and the last 3 messages. Default true. */
  promptCaching?: boolean;
}


/**
 * The output cap sent when the request sets none (the Messages API requires one): 4,096 for
 * Claude 3 Haiku / Sonnet / Opus, 8,192 for Claude 3.5, 16,384 otherwise (the loop raises it when
 * an answer is cut by the limit).
 */
export function defaultMaxTokens(model: string): number {
  const name = model.toLowerCase();
  if (/claude-3-(haiku|sonnet|opus)/.test(name)) return 4_096;
  if (/claude-3[-.]5/.test(name)) return 8_192;
  return 16_384;
}

/**
 * Creates a Messages API provider. The client is created once, on the first `stream` call, with the
 * SDK's own retries, logging and telemetry off (the agent loop owns retries; stdout stays ACP's).
 * `stream` follows the `Provider` contract: it never throws; it ends with exactly one `done` or
 * `error` event; text and thinking deltas stream as they arrive; each thinking or redacted-thinking
 * block, once complete (`content_block_stop`) and signed, is told by one `reasoning_detail` event
 * to keep with the answer (an unsigned one is not: the API would refuse it back); each `tool_use`
 * block is announced by `tool_call_start` and its `input_json` fragments by `tool_call_delta`;
 * after the model stops, `tool_call_end` for every call in order, then `usage`, then `done`.
 * Abort ends it promptly with an `aborted` error.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  let loading: Promise<Loaded> | undefined;
  const load = (): Promise<Loaded> => {
    loading ??= import("@anthropic-ai/sdk").then((mod) => ({ mod, client: createClient(mod, options) }));
    loading.catch(() => (loading = undefined));
    return loading;
  };
  return {
    id: options.id,
    stream: (request, signal) => streamMessages(options, load, request, signal),
  };
}

function createClient(mod: AnthropicModule, options: AnthropicProviderOptions): AnthropicClient {
  const baseURL = options.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  let official = false;
  try {
    official = new URL(baseURL).hostname.toLowerCase() === "api.anthropic.com";
  } catch {
    official = false;
  }
  return new mod.Anthropic({
    apiKey: options.apiKey,
    baseURL,
    // Anthropic-compatible third parties conventionally read `x-api-key`; the SDK sends a bearer token.
    defaultHeaders: { ...(official ? {} : { "x-api-key": options.apiKey }), ...options.headers },
    maxRetries: 0,
    timeout: sdkTimeoutMs(connectTimeoutMs(options)),
    logLevel: "off",
    openTelemetry: false,
    fetch: httpFetch,
  });
}

/**
 * The request body: system and history converted (thinking blocks included, see
 * `toAnthropicConversation`), cache breakpoints placed, tools when any, and extended thinking for
 * the request's reasoning effort (see `thinkingParams`, which may raise `max_tokens`).
 * `temperature` is not sent: the Messages API version this SDK speaks has no such parameter, and
 * thinking would refuse one.
 */
export function toMessagesRequest(request: ModelRequest, promptCaching = true): MessageCreateParamsStreaming {
  const conversation = toAnthropicConversation(request.messages);
  if (promptCaching) addCacheBreakpoints(conversation);
  const { max_tokens, thinking, output_config } = thinkingParams(request, request.maxTokens ?? defaultMaxTokens(request.model), conversation.messages);
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens,
    messages: conversation.messages,
    stream: true,
  };
  if (thinking) body.thinking = thinking;
  if (output_config) body.output_config = output_config;
  if (conversation.system.length > 0) body.system = conversation.system;
  if (request.tools && request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
  return body;
}

interface ToolBlock {
  index: number;
  id: string;
  name: string;
  arguments: string;
  /** `input` of the `content_block_start` event, used when no fragment arrives. */
  initial: unknown;
}

async function* streamMessages(
  options: AnthropicProviderOptions,
  load: () => Promise<Loaded>,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const redact = redactor(options.apiKey);
  const opened = await openGuardedCall<Loaded, RawMessageStreamEvent>(options, "Anthropic", load, signal, redact);
  if ("failure" in opened) {
    yield opened.failure;
    return;
  }
  const { loaded, guard } = opened;
  const tools = new Map<number, ToolBlock>();
  /** Thinking blocks still streaming, by content index; each is told whole at its `content_block_stop`. */
  const thinking = new Map<number, ReasoningDetail>();
  const usage = new UsageTotals();
  let stopReason: string | undefined;
  let failure: ErrorEvent | undefined;
  const classify = (error: unknown): ErrorEvent => classifyError(error, loaded.mod, options.id, redact);

  try {
    const body = toMessagesRequest(request, options.promptCaching ?? true);
    for await (const event of guard.chunks((own) => loaded.client.messages.create(body, { signal: own }))) {
      // A server may send anything: an event that is not an object is skipped, fields of the wrong type read as absent.
      if (!isObject(event)) continue;
      switch (event.type) {
        case "message_start":
          usage.add(event.message?.usage);
          break;
        case "content_block_start": {
          const block = event.content_block;
          if (!isObject(block)) break;
          if (block.type === "text" && text(block.text)) yield { type: "text_delta", text: block.text };
          else if (block.type === "thinking") {
            thinking.set(event.index, { type: "thinking", thinking: text(block.thinking), signature: text(block.signature) });
            if (text(block.thinking)) yield { type: "reasoning_delta", text: block.thinking };
          } else if (block.type === "redacted_thinking") thinking.set(event.index, { type: "redacted_thinking", data: text(block.data) });
          else if (block.type === "tool_use") {
            const id = text(block.id) || `toolu_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
            const call: ToolBlock = { index: tools.size, id, name: text(block.name), arguments: "", initial: block.input };
            tools.set(event.index, call);
            yield { type: "tool_call_start", index: call.index, id: call.id, name: call.name };
          }
          break;
        }
        case "content_block_delta": {
          const delta = event.delta;
          if (!isObject(delta)) break;
          if (delta.type === "text_delta" && text(delta.text)) yield { type: "text_delta", text: delta.text };
          else if (delta.type === "thinking_delta" && text(delta.thinking)) {
            const block = thinking.get(event.index);
            if (block?.type === "thinking") block.thinking += delta.thinking;
            yield { type: "reasoning_delta", text: delta.thinking };
          } else if (delta.type === "signature_delta" && text(delta.signature)) {
            const block = thinking.get(event.index);
            if (block?.type === "thinking") block.signature += delta.signature;
          } else if (delta.type === "input_json_delta" && text(delta.partial_json)) {
            const call = tools.get(event.index);
            if (call) {
              call.arguments += delta.partial_json;
              yield { type: "tool_call_delta", index: call.index, argumentsDelta: delta.partial_json };
            }
          }
          break;
        }
        case "content_block_stop": {
          const block = thinking.get(event.index);
          thinking.delete(event.index);
          if (block && isSendable(block)) yield { type: "reasoning_detail", detail: block };
          break;
        }
        case "message_delta": {
          const stop = text(event.delta?.stop_reason);
          if (stop) stopReason = stop;
          usage.add(event.usage);
          break;
        }
        default:
          break;
      }
    }
    failure = guard.failure(options.id, stopReason !== undefined, classify);
  } catch (error) {
    failure = signal.aborted ? abortedEvent() : classify(error);
  }
  if (failure) {
    yield failure;
    return;
  }
  for (const call of [...tools.values()].sort((a, b) => a.index - b.index)) {
    yield { type: "tool_call_end", index: call.index, id: call.id, name: call.name, arguments: finalArguments(call) };
  }
  const total = usage.result();
  if (total) yield { type: "usage", usage: total };
  yield { type: "done", finishReason: toFinishReason(stopReason ?? "end_turn", tools.size > 0) };
}

/** True for a non-null object (what every well-formed event and block is). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** `value` when it is a string, else "" (a field of the wrong type reads as absent). */
function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A thinking block the API will take back: signed thinking (the signature proves it), redacted thinking with its data. */
function isSendable(block: ReasoningDetail): boolean {
  return block.type === "thinking" ? block.signature !== "" : block.data !== "";
}

function finalArguments(call: ToolBlock): string {
  if (call.arguments !== "") return call.arguments;
  const initial = call.initial;
  return initial !== null && typeof initial === "object" ? JSON.stringify(initial) : "{}";
}


/**
 * Anthropic usage across `message_start` and `message_delta` (later values win). `inputTokens`
 * counts the whole prompt, cached parts included, as OpenAI's `prompt_tokens` does. A count that is not a
 * number ≥ 0 reads as absent.
 */
class UsageTotals {
  private seen = false;
  private input = 0;
  private output = 0;
  private cacheRead: number | undefined;
  private cacheWrite: number | undefined;

  add(usage: unknown): void {
    if (!usage || typeof usage !== "object") return;
    const fields = usage as Record<string, unknown>;
    const number = (name: string): number | undefined => {
      const value = fields[name];
      return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
    };
    const input = number("input_tokens");
    const output = number("output_tokens");
    const read = number("cache_read_input_tokens");
    const write = number("cache_creation_input_tokens");
    if (input !== undefined) this.input = input;
    if (output !== undefined) this.output = output;
    if (read !== undefined) this.cacheRead = read;
    if (write !== undefined) this.cacheWrite = write;
    this.seen ||= input !== undefined || output !== undefined;
  }

  result(): TokenUsage | undefined {
    if (!this.seen) return undefined;
    const inputTokens = this.input + (this.cacheRead ?? 0) + (this.cacheWrite ?? 0);
    const usage: TokenUsage = { inputTokens, outputTokens: this.output, totalTokens: inputTokens + this.output };
    if (this.cacheRead !== undefined) usage.cachedTokens = this.cacheRead;
    if (this.cacheWrite !== undefined) usage.cacheWriteTokens = this.cacheWrite;
    return usage;
  }
}

/**
 * `end_turn` / `stop_sequence` → stop, `tool_use` → tool_calls, `max_tokens` and
 * `model_context_window_exceeded` → length, `refusal` → content_filter; a call that produced tool
 * uses reports `tool_calls` unless cut by length or refused.
 */
function toFinishReason(reason: string, hasToolCalls: boolean): FinishReason {
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  if (reason === "refusal") return "content_filter";
  if (hasToolCalls || reason === "tool_use") return "tool_calls";
  return reason === "end_turn" || reason === "stop_sequence" ? "stop" : "unknown";
}

/** Anthropic's error types, for errors that arrive inside the stream (no HTTP status). */
const ERROR_TYPE_KINDS: Readonly<Record<string, ProviderErrorKind>> = {
  authentication_error: "auth",
  permission_error: "auth",
  billing_error: "auth",
  rate_limit_error: "rate_limit",
  overloaded_error: "server",
  api_error: "server",
  timeout_error: "timeout",
  request_too_large: "payload_too_large",
  not_found_error: "bad_request",
};

/** A one-line error event for what the Anthropic SDK threw (see `classifySdkError`). */
function classifyError(error: unknown, mod: AnthropicModule, providerId: string, redact: (text: string) => string): ErrorEvent {
  return classifySdkError(
    error,
    {
      timeoutError: mod.APIConnectionTimeoutError,
      connectionError: mod.APIConnectionError,
      apiError: mod.APIError,
      readApiError: (raw) => {
        const apiError = raw as InstanceType<AnthropicModule["APIError"]>;
        const status = apiError.status;
        const type = apiError.type ?? undefined;
        const serverMessage = apiError.apiMessage ?? apiError.message.replace(/^\d{3}\s+/, "");
        let kind: ProviderErrorKind | undefined;
        if (status === undefined && type && ERROR_TYPE_KINDS[type]) kind = ERROR_TYPE_KINDS[type];
        else if (type === "invalid_request_error" && CONTEXT_OVERFLOW.test(serverMessage)) kind = "context_overflow";
        return {
          status,
          serverMessage,
          headers: apiError.headers ?? undefined,
          ...(kind ? { kind } : {}),
          streamLabel: `stream error${type ? ` (${type})` : ""}`,
        };
      },
    },
    providerId,
    redact,
  );
}
