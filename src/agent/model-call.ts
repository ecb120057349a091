import type {
  FinishReason,
  ModelRequest,
  Provider,
  ProviderErrorKind,
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
  usage: TokenUsage | undefined;
  outcome: ModelCallOutcome;
}

/**
 * Streams one model call (one attempt), relaying visible text as `message_delta` and reasoning as
 * `reasoning_delta` under `messageId` as they arrive. Inline `<think>`/`<thinking>` blocks in the content
 * (tags split across chunks included) are reasoning, never visible text; when the provider also sends
 * native reasoning they are dropped instead, so a thought is not shown twice. Tool calls are returned only
 * when the stream completed; a cut or aborted stream returns none, so a half-received call is never
 * executed. Never throws.
 */
export async function callModel(
  provider: Provider,
  request: ModelRequest,
  messageId: string,
  signal: AbortSignal,
  emit: EmitAgentEvent,
): Promise<ModelCallResult> {
  const result: ModelCallResult = { text: "", reasoning: "", toolCalls: [], usage: undefined, outcome: { kind: "aborted" } };
  const finished: ToolCall[] = [];
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
      switch (event.type) {
        case "text_delta":
          if (event.text) relay(splitter.push(event.text));
          break;
        case "reasoning_delta":
          if (!event.text) break;
          nativeReasoning = true;
          reason(event.text);
          break;
        case "tool_call_end":
          finished.push({ id: event.id, type: "function", function: { name: event.name, arguments: event.arguments } });
          break;
        case "usage":
          result.usage = event.usage;
          break;
        case "done":
          relay(splitter.finish());
          result.outcome = { kind: "done", finishReason: event.finishReason };
          result.toolCalls = finished;
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
