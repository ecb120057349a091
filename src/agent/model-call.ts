import type {
  FinishReason,
  ModelRequest,
  Provider,
  ProviderErrorKind,
  ProviderEvent,
  ReasoningDetail,
  ResponsesReasoningItem,
  TokenUsage,
  ToolCall,
} from "../llm/types.js";
import type { EmitAgentEvent } from "./events.js";
import { ThinkTagSplitter, type ContentSegment } from "./think-tags.js";

export type ModelCallOutcome =
  | { kind: "done"; finishReason: FinishReason }
  | { kind: "aborted" }
  | { kind: "error"; errorKind: ProviderErrorKind; message: string; status?: number; retryAfterMs?: number };

/** What one model call produced, complete or not. Text already streamed is always kept. */
export interface ModelCallResult {
  /** The visible answer: content without inline reasoning blocks. */
  text: string;
  /** Provider reasoning, and inline `<think>`-style blocks when the provider sent none of its own. */
  reasoning: string;
  toolCalls: ToolCall[];
  /** Anthropic thinking blocks (with signatures) of a completed call, to store and send back. */
  reasoningDetails?: ReasoningDetail[];
  /** Responses API reasoning items of a completed call, to store and send back. */
  reasoningItems?: ResponsesReasoningItem[];
  usage: TokenUsage | undefined;
  outcome: ModelCallOutcome;
  /**
   * True when the response passed the size cap and was stopped (outcome `done` / `length`, no tool
   * calls: the last ones were incomplete).
   */
  capped?: boolean;
}

/** Longest model response, in characters of text, reasoning and tool arguments (`model.max_response_chars`). */
export const DEFAULT_MAX_RESPONSE_CHARS = 1_000_000;

/**
 * Streams one model call (one attempt), relaying visible text as `message_delta` and reasoning as
 * `reasoning_delta` under `messageId` as they arrive. Inline `<think>`/`<thinking>` blocks in the content
 * (tags split across chunks included) are reasoning, never visible text; when the provider also sends
 * native reasoning they are dropped instead, so a thought is not shown twice. Tool calls are returned only
 * when the stream completed; a cut or aborted stream returns none, so a half-received call is never
 * executed. Never throws.
 *
 * A response whose text, reasoning and tool-argument characters (fragments, or final arguments that came
 * whole) together pass `maxResponseChars` is stopped there: the stream is closed (which aborts the HTTP
 * request, so nothing more is buffered), and the result is what arrived so far with outcome `done` /
 * `length`, `capped` set and no tool calls.
 */
export async function callModel(
  provider: Provider,
  request: ModelRequest,
  messageId: string,
  signal: AbortSignal,
  emit: EmitAgentEvent,
  maxResponseChars: number = DEFAULT_MAX_RESPONSE_CHARS,
): Promise<ModelCallResult> {
  const result: ModelCallResult = { text: "", reasoning: "", toolCalls: [], usage: undefined, outcome: { kind: "aborted" } };
  let received = 0;
  /** Argument characters streamed per tool-call index, so final arguments are counted only once. */
  const streamedArgs = new Map<number, number>();
  const finished: ToolCall[] = [];
  const details: ReasoningDetail[] = [];
  const items: ResponsesReasoningItem[] = [];
  const splitter = new ThinkTagSplitter();
  let nativeReasoning = false;
  const reason = (text: string): void => {
    result.reasoning += text;
    emit({ type: "reasoning_delta", messageId, text });
  };
  const relay = (segments: ContentSegment[]): void => {
    for (const segment of segments) {
      if (segment.kind === "reasoning") {
        if (!nativeReasoning) reason(segment.text);
        continue;
      }
      result.text += segment.text;
      emit({ type: "message_delta", messageId, text: segment.text });
    }
  };
  try {
    for await (const event of provider.stream(request, signal)) {
      received += responseChars(event);
      switch (event.type) {
        case "tool_call_delta":
          streamedArgs.set(event.index, (streamedArgs.get(event.index) ?? 0) + event.argumentsDelta.length);
          break;
        case "text_delta":
          if (event.text) relay(splitter.push(event.text));
          break;
        case "reasoning_delta":
          if (!event.text) break;
          nativeReasoning = true;
          reason(event.text);
          break;
        case "tool_call_end":
          // Final arguments may come whole, never streamed (Responses API `arguments.done`): they count too.
          received += Math.max(0, event.arguments.length - (streamedArgs.get(event.index) ?? 0));
          finished.push({ id: event.id, type: "function", function: { name: event.name, arguments: event.arguments } });
          break;
        case "usage":
          result.usage = event.usage;
          break;
        case "reasoning_detail":
          details.push(event.detail);
          break;
        case "reasoning_item":
          items.push(event.item);
          break;
        case "done":
          relay(splitter.finish());
          result.outcome = { kind: "done", finishReason: event.finishReason };
          result.toolCalls = finished;
          if (details.length) result.reasoningDetails = details;
          if (items.length) result.reasoningItems = items;
          return result;
        case "error":
          relay(splitter.finish());
          result.outcome =
            event.kind === "aborted" || signal.aborted
              ? { kind: "aborted" }
              : {
                  kind: "error",
                  errorKind: event.kind,
                  message: event.message,
                  ...(event.status !== undefined ? { status: event.status } : {}),
                  ...(event.retryAfterMs !== undefined ? { retryAfterMs: event.retryAfterMs } : {}),
                };
          return result;
        default:
          break;
      }
      if (received > maxResponseChars) {
        // Leaving the loop closes the provider's stream, which aborts its HTTP request.
        relay(splitter.finish());
        result.outcome = { kind: "done", finishReason: "length" };
        result.capped = true;
        return result;
      }
    }
    relay(splitter.finish());
    result.outcome = signal.aborted
      ? { kind: "aborted" }
      : { kind: "error", errorKind: "network", message: "the model stream ended without a finish event" };
  } catch (error) {
    result.outcome = signal.aborted
      ? { kind: "aborted" }
      : { kind: "error", errorKind: "unknown", message: error instanceof Error ? error.message : String(error) };
  }
  return result;
}

/** The characters an event adds to the response: text, reasoning and tool-argument fragments. */
function responseChars(event: ProviderEvent): number {
  switch (event.type) {
    case "text_delta":
    case "reasoning_delta":
      return event.text.length;
    case "tool_call_delta":
      return event.argumentsDelta.length;
    default:
      return 0;
  }
}
