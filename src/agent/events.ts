import type { TokenUsage } from "../llm/types.js";
import type { PreparedToolCall } from "../tools/prepared-call.js";
import type { DetailedToolName, ToolProgressMap } from "../tools/details.js";
import {
  typeArgs,
  typeCall,
  typeProgress,
  type ArgsTagOf,
  type CallTagOf,
  type ProgressTagOf,
  type TypedArgs,
  type TypedCall,
  type TypedProgress,
} from "../tools/typed-call.js";
import type { ToolKind, ToolLocation } from "../tools/types.js";
import type { FileEdit } from "../tools/ports.js";

export type StopReason = "end_turn" | "cancelled" | "max_turn_requests" | "max_tokens" | "refusal";

/** What every tool event says about its call. */
export interface ToolEventBase {
  callId: string;
  name: string;
  /** Arguments as the editor sees them: parsed JSON, or `{ raw }` when the model's JSON did not parse. */
  args: unknown;
}

export interface ToolStartBase extends ToolEventBase {
  type: "tool_start";
  title: string;
  kind: ToolKind;
  locations: ToolLocation[];
  /**
   * The changes of an edit that will go ahead without asking (the session's mode approves it),
   * previewed from the files on disk before the tool runs (secrets masked), so the editor shows
   * the diff at the start, as there is no approval card. Absent otherwise; the completion shows
   * what was really written.
   */
  edits?: FileEdit[];
}

export interface ToolProgressBase extends ToolEventBase {
  type: "tool_progress";
}

export interface ToolEndBase extends ToolEventBase {
  type: "tool_end";
  /** What the tool returned (secrets masked); a result too large for the model reaches it as a preview (result-budget.ts). */
  content: string;
  isError: boolean;
}

/**
 * A tool call starting. `tool` / `input` type its validated arguments by tool (see typed-call.ts);
 * `input` is absent when they did not validate.
 */
export type ToolStartEvent = ToolStartBase & TypedArgs;

/** Partial output of a running tool (e.g. terminal output as it arrives), typed by tool. */
export type ToolProgressEvent = ToolProgressBase & TypedProgress;

/**
 * A tool call finished. `tool` / `input` / `details` type the validated arguments and the
 * editor's details by tool: a discriminated union on `tool` (`null` for tools without types).
 */
export type ToolEndEvent = ToolEndBase & TypedCall;

/** The events of a call to the built-in tool `N`, for code generic over tools (renderers). */
export type ToolStartOf<N extends DetailedToolName> = ToolStartBase & ArgsTagOf<N>;
export type ToolEndOf<N extends DetailedToolName> = ToolEndBase & CallTagOf<N>;
export type ToolProgressOf<N extends keyof ToolProgressMap> = ToolProgressBase & ProgressTagOf<N>;

/**
 * What one turn reports to its front end (the ACP adapter or the CLI), in order.
 * Every `tool_start` is followed by exactly one `tool_end` with the same `callId`,
 * and `turn_end` is always the last event of a turn.
 */
export type AgentEvent =
  | { type: "message_delta"; messageId: string; text: string }
  | { type: "reasoning_delta"; messageId: string; text: string }
  | { type: "message_end"; messageId: string }
  | ToolStartEvent
  | ToolProgressEvent
  | ToolEndEvent
  | { type: "usage"; usage: TokenUsage }
  | { type: "turn_end"; stopReason: StopReason; usage?: TokenUsage };

export type EmitAgentEvent = (event: AgentEvent) => void;

/** What started a compression: the threshold in a turn, `/compress`, or a provider refusing the request as too long. */
export type CompactionTrigger = "auto" | "manual" | "overflow";

/**
 * One compression of a session's conversation (see `ContextCompressor`), reported to the session's
 * compaction listeners (`AgentSession.onCompaction`), in or out of a turn: `started` once, then
 * exactly one of `completed` (with the counts and the summary the model now sees instead of the
 * middle), `failed` (the summary call failed; a fallback may follow as a new compaction) or
 * `cancelled`.
 */
export type CompactionEvent =
  | { type: "compaction"; compactionId: string; trigger: CompactionTrigger; status: "started" }
  | {
      type: "compaction";
      compactionId: string;
      trigger: CompactionTrigger;
      status: "completed";
      beforeMessages: number;
      afterMessages: number;
      beforeTokens: number;
      afterTokens: number;
      /** `A -> B messages, ~X -> ~Y tokens`. */
      text: string;
      summary: string;
    }
  | { type: "compaction"; compactionId: string; trigger: CompactionTrigger; status: "failed"; error: string }
  | { type: "compaction"; compactionId: string; trigger: CompactionTrigger; status: "cancelled" };

/** The `tool_start` of a prepared call: the one builder, for live turns and replays alike. Pure. */
export function toolStartEvent(prepared: PreparedToolCall): ToolStartEvent {
  return {
    type: "tool_start",
    callId: prepared.callId,
    name: prepared.name,
    args: prepared.displayArgs,
    title: prepared.title,
    kind: prepared.kind,
    locations: prepared.locations,
    ...typeArgs(prepared.name, prepared.args),
  };
}

/** A `tool_progress` of a prepared call (`details` as the tool reported them, already redacted). Pure. */
export function toolProgressEvent(prepared: PreparedToolCall, details: unknown): ToolProgressEvent {
  return { type: "tool_progress", callId: prepared.callId, name: prepared.name, args: prepared.displayArgs, ...typeProgress(prepared.name, details) };
}

/** The `tool_end` of a prepared call and its result: the one builder, for live turns and replays alike. Pure. */
export function toolEndEvent(prepared: PreparedToolCall, result: { content: string; isError: boolean; details?: unknown }): ToolEndEvent {
  return {
    type: "tool_end",
    callId: prepared.callId,
    name: prepared.name,
    args: prepared.displayArgs,
    content: result.content,
    isError: result.isError,
    ...typeCall(prepared.name, prepared.args, result.details),
  };
}
