import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../../agent/events.js";

export type ToolStart = Extract<AgentEvent, { type: "tool_start" }>;
export type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;
export type ToolProgress = Extract<AgentEvent, { type: "tool_progress" }>;

/** How a finished tool call is shown. `failed` defaults to the executor's verdict. */
export interface Completion {
  content: ToolCallContent[];
  failed?: boolean;
}

/** One tool's renderers; both are pure and may throw (the dispatcher falls back). */
export interface ToolRenderer {
  start?(event: ToolStart): ToolCallContent[];
  complete?(event: ToolEnd): Completion;
}
