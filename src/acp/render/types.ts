import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { ToolEndEvent, ToolEndOf, ToolProgressEvent, ToolProgressOf, ToolStartEvent, ToolStartOf } from "../../agent/events.js";
import type { DetailedToolName, ToolProgressMap } from "../../tools/details.js";
import type { ToolLocation } from "../../tools/types.js";

export type ToolStart = ToolStartEvent;
export type ToolEnd = ToolEndEvent;
export type ToolProgress = ToolProgressEvent;
export type { ToolEndOf, ToolProgressOf, ToolStartOf };

/** How a finished tool call is shown. `failed` defaults to the executor's verdict. */
export interface Completion {
  content: ToolCallContent[];
  failed?: boolean;
  /** Where the call turned out to act, when `describe` could not know it (e.g. the skill file a name resolved to). */
  locations?: ToolLocation[];
}

/**
 * One built-in tool's renderers, given that tool's own typed events (`input` absent when the
 * arguments did not validate, `details` absent when the result carried none or stored ones did not
 * decode: then they show the plain text). Pure; may throw (the dispatcher falls back).
 */
export interface ToolRenderer<N extends DetailedToolName> {
  start(event: ToolStartOf<N>): ToolCallContent[];
  complete(event: ToolEndOf<N>): Completion;
}

/** What a running built-in tool's progress shows. Pure; may throw (the dispatcher falls back). */
export type ProgressRenderer<N extends keyof ToolProgressMap> = (event: ToolProgressOf<N>) => ToolCallContent[];
