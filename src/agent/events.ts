import type { TokenUsage } from "../llm/types.js";
import type { ToolKind, ToolLocation } from "../tools/types.js";

export type StopReason = "end_turn" | "cancelled" | "max_turn_requests" | "max_tokens" | "refusal";

/**
 * What one turn reports to its front end (the ACP adapter or the CLI), in order.
 * Every `tool_start` is followed by exactly one `tool_end` with the same `callId`,
 * and `turn_end` is always the last event of a turn.
 */
export type AgentEvent =
  | { type: "message_delta"; messageId: string; text: string }
  | { type: "reasoning_delta"; messageId: string; text: string }
  | { type: "message_end"; messageId: string }
  | {
      type: "tool_start";
      callId: string;
      name: string;
      /** Parsed arguments, or `{ raw }` when the model's JSON did not parse. */
      args: unknown;
      title: string;
      kind: ToolKind;
      locations: ToolLocation[];
    }
  /** Partial output of a running tool (e.g. terminal output as it arrives); same shape as the final details. */
  | { type: "tool_progress"; callId: string; name: string; args: unknown; details: unknown }
  | { type: "tool_end"; callId: string; name: string; args: unknown; content: string; details?: unknown; isError: boolean }
  | { type: "usage"; usage: TokenUsage }
  | { type: "turn_end"; stopReason: StopReason; usage?: TokenUsage };

export type EmitAgentEvent = (event: AgentEvent) => void;
