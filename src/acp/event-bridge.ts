import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../agent/events.js";
import { planFromTodo } from "./render/plan.js";
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
