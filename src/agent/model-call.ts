import type {
  FinishReason,
  ModelRequest,
  Provider,
  ProviderErrorKind,
  TokenUsage,
  ToolCall,
} from "../llm/types.js";
import type { EmitAgentEvent } from "./events.js";

export type ModelCallOutcome =
  | { kind: "done"; finishReason: FinishReason }
  | { kind: "aborted" }
  | { kind: "error"; errorKind: ProviderErrorKind; message: string; status?: number };

/** What one model call produced, complete or not. Text already streamed is always kept. */
export interface ModelCallResult {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: TokenUsage | undefined;
  outcome: ModelCallOutcome;
}

/**
 * Streams one model call, relaying text and reasoning deltas under `messageId` as they arrive.
 * Tool calls are returned only when the stream completed; a cut or aborted stream returns none,
 * so a half-received call is never executed. Never throws.
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
  try {
    for await (const event of provider.stream(request, signal)) {
      switch (event.type) {
        case "text_delta":
          if (!event.text) break;
          result.text += event.text;
          emit({ type: "message_delta", messageId, text: event.text });
          break;
        case "reasoning_delta":
          if (!event.text) break;
          result.reasoning += event.text;
          emit({ type: "reasoning_delta", messageId, text: event.text });
          break;
        case "tool_call_end":
          finished.push({ id: event.id, type: "function", function: { name: event.name, arguments: event.arguments } });
          break;
        case "usage":
          result.usage = event.usage;
          break;
        case "done":
          result.outcome = { kind: "done", finishReason: event.finishReason };
          result.toolCalls = finished;
          return result;
        case "error":
          result.outcome =
            event.kind === "aborted" || signal.aborted
              ? { kind: "aborted" }
              : { kind: "error", errorKind: event.kind, message: event.message, ...(event.status ? { status: event.status } : {}) };
          return result;
        default:
          break;
      }
    }
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
