/**
 * Provider for OpenAI's Responses API (`POST /v1/responses`; Hermes' `codex_responses`), over the
 * official `openai` package, which is loaded on first use so start-up does not pay for it.
 *
 * Every call is stateless: `store: false`, the whole history as `input`, never `previous_response_id`,
 * so a session survives restarts and works on endpoints that keep nothing. Reasoning is carried
 * across calls by the encrypted reasoning items the model returns (kept on the assistant message as
 * `codex_reasoning_items` and sent back before its text and tool calls).
 */
import { randomUUID } from "node:crypto";
import type { ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import { abortedEvent, openGuardedCall } from "./guarded-stream.js";
import { classifyOpenAiError, lazyOpenAiClient, type LoadedOpenAi, type OpenAiChatProviderOptions } from "./openai-client.js";
import { toResponsesRequest } from "./openai-responses-input.js";
import { CONTEXT_OVERFLOW, redactor } from "./provider-errors.js";
import type {
  FinishReason,
  ModelRequest,
  Provider,
  ProviderErrorKind,
  ProviderEvent,
  ResponsesReasoningItem,
  TokenUsage,
} from "./types.js";

type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;
type Loaded = LoadedOpenAi;

/** The same options as the chat-completions provider: `baseUrl` includes the version path (`…/v1`). */
export type OpenAiResponsesProviderOptions = OpenAiChatProviderOptions;

/**
 * Creates a Responses API provider. The client is created once, on the first `stream` call, with
 * the SDK's own retries and logging off (the agent loop owns retries). `stream` follows the
 * `Provider` contract: it never throws; it ends with exactly one `done` or `error` event; text,
 * reasoning-summary and argument deltas stream as they arrive; a `reasoning_item` event follows each
 * finished reasoning item; after `response.completed` (or `response.incomplete`) come `usage`, then
 * `tool_call_end` for every call in output order, then `done`. `response.failed` and `error` events
 * end it with a classified `error`. Abort ends it promptly with an `aborted` error.
 */
export function createOpenAiResponsesProvider(options: OpenAiResponsesProviderOptions): Provider {
  const load = lazyOpenAiClient(options);
  return {
    id: options.id,
    stream: (request, signal) => streamResponses(options, load, request, signal),
  };
}

async function* streamResponses(
  options: OpenAiResponsesProviderOptions,
  load: () => Promise<Loaded>,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const redact = redactor(options.apiKey);
  const opened = await openGuardedCall<Loaded, ResponseStreamEvent>(options, "openai", load, signal, redact);
  if ("failure" in opened) {
    yield opened.failure;
    return;
  }
  const { loaded, guard } = opened;
  const calls = new FunctionCalls();
  /** Reasoning items whose text was streamed, and whether the next reasoning text starts a new paragraph. */
  const reasoning = new Set<string>();
  let separate = false;
  let usage: TokenUsage | undefined;
  let finish: FinishReason | undefined;
  let failure: ErrorEvent | undefined;
  const classify = (error: unknown): ErrorEvent => classifyOpenAiError(error, loaded.mod, options.id, redact, kindForCode);

  try {
    const body = toResponsesRequest(request);
    for await (const event of guard.chunks((own) => loaded.client.responses.create(body, { signal: own }))) {
      // A server may send anything: an event that is not an object is skipped, fields of the wrong type read as absent.
      if (!isObject(event)) continue;
      switch (event.type) {
        case "response.output_text.delta":
        case "response.refusal.delta":
          if (text(event.delta)) yield { type: "text_delta", text: event.delta };
          break;
        case "response.reasoning_summary_part.added":
          if (event.summary_index > 0 && reasoning.has(event.item_id)) separate = true;
          break;
        case "response.reasoning_summary_text.delta":
        case "response.reasoning_text.delta":
          if (text(event.delta)) {
            // Summary parts and reasoning items read as paragraphs, as the joined summary does.
            if (separate || (reasoning.size > 0 && !reasoning.has(event.item_id))) yield { type: "reasoning_delta", text: "\n\n" };
            separate = false;
            reasoning.add(event.item_id);
            yield { type: "reasoning_delta", text: event.delta };
          }
          break;
        case "response.output_item.added":
          if (isObject(event.item) && event.item.type === "function_call") yield* calls.added(event.output_index, event.item);
          break;
        case "response.function_call_arguments.delta":
          yield* calls.delta(event.output_index, text(event.delta));
          break;
        case "response.function_call_arguments.done":
          calls.final(event.output_index, event.arguments);
          break;
        case "response.output_item.done": {
          const item = event.item;
          if (!isObject(item)) break;
          if (item.type === "function_call") {
            yield* calls.added(event.output_index, item);
            calls.final(event.output_index, item.arguments);
          } else if (item.type === "reasoning") {
            const kept = toReasoningItem(item);
            const summary = kept.summary.map((part) => part.text).join("\n\n");
            if (!reasoning.has(item.id) && summary !== "") {
              yield { type: "reasoning_delta", text: reasoning.size > 0 ? `\n\n${summary}` : summary };
              reasoning.add(item.id);
            }
            yield { type: "reasoning_item", item: kept };
          }
          break;
        }
        case "response.completed":
          if (isObject(event.response?.usage)) usage = toUsage(event.response.usage);
          finish = calls.size > 0 ? "tool_calls" : "stop";
          break;
        case "response.incomplete":
          if (isObject(event.response?.usage)) usage = toUsage(event.response.usage);
          finish = incompleteReason(event.response?.incomplete_details?.reason);
          break;
        case "response.failed": {
          const error: unknown = event.response?.error;
          const facts = isObject(error) ? (error as { code?: unknown; message?: unknown }) : {};
          failure = streamError(options.id, text(facts.code) || undefined, text(facts.message) || "the response failed", redact);
          break;
        }
        case "error":
          failure = streamError(options.id, text(event.code) || undefined, text(event.message) || "the server reported an error", redact);
          break;
        default:
          break;
      }
      if (failure || finish) break;
    }
    failure ??= guard.failure(options.id, finish !== undefined, classify);
  } catch (error) {
    failure = signal.aborted ? abortedEvent() : classify(error);
  }

  if (failure) {
    yield failure;
    return;
  }
  if (usage) yield { type: "usage", usage };
  yield* calls.finish();
  yield { type: "done", finishReason: finish ?? "stop" };
}


/** True for a non-null object (what every well-formed event and item is). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** `value` when it is a string, else "" (a field of the wrong type reads as absent). */
function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A token count: a finite number ≥ 0, rounded; undefined for anything else. */
function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
}

/**
 * What we keep of a finished reasoning output item: id, encrypted content, summary texts (fields
 * of the wrong type, and summary parts without text, are dropped).
 */
function toReasoningItem(item: { id?: unknown; encrypted_content?: unknown; summary?: unknown }): ResponsesReasoningItem {
  const parts: unknown[] = Array.isArray(item.summary) ? item.summary : [];
  const kept: ResponsesReasoningItem = {
    type: "reasoning",
    summary: parts.flatMap((part) => (isObject(part) && typeof part.text === "string" ? [{ type: "summary_text" as const, text: part.text }] : [])),
  };
  if (text(item.id)) kept.id = text(item.id);
  if (text(item.encrypted_content)) kept.encrypted_content = text(item.encrypted_content);
  return kept;
}

/** Usage from the final response; a count that is not a number ≥ 0 reads as absent. */
function toUsage(usage: ResponseUsage): TokenUsage {
  const input = tokenCount(usage.input_tokens) ?? 0;
  const output = tokenCount(usage.output_tokens) ?? 0;
  const result: TokenUsage = { inputTokens: input, outputTokens: output, totalTokens: tokenCount(usage.total_tokens) ?? input + output };
  const cached = tokenCount(usage.input_tokens_details?.cached_tokens);
  const reasoning = tokenCount(usage.output_tokens_details?.reasoning_tokens);
  if (cached !== undefined) result.cachedTokens = cached;
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

/** `max_output_tokens` → length (so cut tool calls are never run), `content_filter` → content_filter. */
function incompleteReason(reason: string | undefined): FinishReason {
  if (reason === "max_output_tokens") return "length";
  if (reason === "content_filter") return "content_filter";
  return "unknown";
}

interface PendingCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
  /** The complete arguments from `function_call_arguments.done` / `output_item.done`, when seen. */
  final?: string;
}

/**
 * Function calls by `output_index`. Each gets the next call index (0, 1, …) in the order the calls
 * appear; `tool_call_start` is emitted once, when the item is first seen, with any arguments it
 * already carries as one delta. `finish` emits `tool_call_end` in index order with the final
 * arguments (the streamed fragments when no final text came). A call without `call_id` gets `call_<random>`;
 * a name or arguments that are not strings read as empty.
 */
class FunctionCalls {
  private readonly byOutput = new Map<number, PendingCall>();

  get size(): number {
    return this.byOutput.size;
  }

  *added(outputIndex: number, item: { call_id?: unknown; name?: unknown; arguments?: unknown }): Generator<ProviderEvent> {
    if (this.byOutput.has(outputIndex)) return;
    const call: PendingCall = {
      index: this.byOutput.size,
      id: text(item.call_id) || `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
      name: text(item.name),
      arguments: text(item.arguments),
    };
    this.byOutput.set(outputIndex, call);
    yield { type: "tool_call_start", index: call.index, id: call.id, name: call.name };
    if (call.arguments !== "") yield { type: "tool_call_delta", index: call.index, argumentsDelta: call.arguments };
  }

  *delta(outputIndex: number, fragment: string): Generator<ProviderEvent> {
    const call = this.byOutput.get(outputIndex);
    if (!call || !fragment) return;
    call.arguments += fragment;
    yield { type: "tool_call_delta", index: call.index, argumentsDelta: fragment };
  }

  final(outputIndex: number, text: unknown): void {
    const call = this.byOutput.get(outputIndex);
    if (call && typeof text === "string" && text !== "") call.final = text;
  }

  *finish(): Generator<ProviderEvent> {
    for (const call of [...this.byOutput.values()].sort((a, b) => a.index - b.index)) {
      const args = call.final ?? (call.arguments || "{}");
      yield { type: "tool_call_end", index: call.index, id: call.id, name: call.name, arguments: args };
    }
  }
}

/** Error codes the Responses API sends inside the stream (no HTTP status), by kind. */
const CODE_KINDS: Readonly<Record<string, ProviderErrorKind>> = {
  rate_limit_exceeded: "rate_limit",
  insufficient_quota: "rate_limit",
  server_error: "server",
  context_length_exceeded: "context_overflow",
  invalid_api_key: "auth",
};

/**
 * The kind of an error sent inside the stream: context-overflow wording first (whatever the code),
 * then the code (`rate_limit_exceeded` → rate_limit, `server_error` → server, …), `invalid_*` and
 * image codes → bad_request, anything else → server (retried).
 */
function kindForCode(code: string | undefined, message: string): ProviderErrorKind {
  const known = code ? CODE_KINDS[code] : undefined;
  if (known === "rate_limit") return known;
  if (CONTEXT_OVERFLOW.test(message)) return "context_overflow";
  if (known) return known;
  if (code && /^(invalid_|image_|unsupported_|empty_|failed_to_download|bio_policy|data_residency)/.test(code)) return "bad_request";
  return "server";
}

function streamError(providerId: string, code: string | undefined, message: string, redact: (text: string) => string): ErrorEvent {
  return { type: "error", kind: kindForCode(code, message), message: redact(`${providerId}: stream error${code ? ` (${code})` : ""}: ${message}`) };
}

