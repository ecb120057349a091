import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent, CompactionEvent } from "../agent/events.js";
import { newId } from "../shared/ids.js";
import { planFromTodo } from "./render/plan.js";
import { DISPLAY_LIMIT_LARGE, truncate } from "./render/text.js";
import { toolEndUpdate, toolProgressUpdate, toolStartUpdate } from "./tool-render.js";

/**
 * The `session/update`s an agent event becomes (none when the editor is not told). Pure. Tool
 * starts and ends pair by the model's tool-call id, so parallel and repeated calls of one tool
 * always close their own ACP tool call. A finished todo call also sends the whole plan.
 */
export function toSessionUpdates(event: AgentEvent): SessionUpdate[] {
  switch (event.type) {
    case "message_delta":
      return [{ sessionUpdate: "agent_message_chunk", messageId: event.messageId, content: { type: "text", text: event.text } }];
    case "reasoning_delta":
      return [{ sessionUpdate: "agent_thought_chunk", messageId: event.messageId, content: { type: "text", text: event.text } }];
    case "tool_start":
      return [toolStartUpdate(event)];
    case "tool_progress":
      return [toolProgressUpdate(event)];
    case "tool_end": {
      const plan = planFromTodo(event);
      return plan ? [toolEndUpdate(event), { sessionUpdate: "plan", entries: plan }] : [toolEndUpdate(event)];
    }
    default:
      return [];
  }
}

/** The client advertised `session.compaction` in `initialize`: it gets `compaction_update`s. */
export function wantsCompactionUpdates(capabilities: ClientCapabilities): boolean {
  const compaction = capabilities.session?.compaction;
  return typeof compaction === "object" && compaction !== null;
}

/**
 * The `session/update`s a compression becomes. A client that opted in (`optedIn`, see
 * `wantsCompactionUpdates`) gets `compaction_update`s under one `compactionId`: `in_progress` at
 * the start, then `completed` (summary: the counts line, then the summary the model now sees in
 * place of the middle, cut at the display limit; the counts and trigger also in
 * `_meta.hermes`), `failed` with the error, or `cancelled`. Any other client gets one agent line
 * when a compression completes, `Context compressed: A -> B messages, ~X -> ~Y tokens`, except
 * for `/compress` (trigger manual), whose reply already says it. Pure apart from the line's
 * message id.
 */
export function compactionUpdates(event: CompactionEvent, optedIn: boolean): SessionUpdate[] {
  const line = event.status === "completed" ? `Context compressed: ${event.text}` : undefined;
  if (!optedIn) {
    if (!line || event.trigger === "manual") return [];
    return [{ sessionUpdate: "agent_message_chunk", messageId: newId(), content: { type: "text", text: `${line}\n\n` } }];
  }
  const base = { sessionUpdate: "compaction_update" as const, compactionId: event.compactionId };
  switch (event.status) {
    case "started":
      return [{ ...base, status: "in_progress", _meta: { hermes: { trigger: event.trigger } } }];
    case "completed": {
      const { beforeMessages, afterMessages, beforeTokens, afterTokens, trigger } = event;
      return [
        {
          ...base,
          status: "completed",
          summary: [
            { type: "text", text: line ?? "" },
            { type: "text", text: truncate(event.summary, DISPLAY_LIMIT_LARGE) },
          ],
          _meta: { hermes: { trigger, beforeMessages, afterMessages, beforeTokens, afterTokens } },
        },
      ];
    }
    case "failed":
      return [{ ...base, status: "failed", error: event.error }];
    case "cancelled":
      return [{ ...base, status: "cancelled" }];
  }
}
