import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../agent/events.js";
import type { ChatMessage, ToolCall } from "../llm/types.js";
import type { TranscriptEntry } from "../runtime/runtime.js";
import { newId } from "../shared/ids.js";
import { describeCall, type ToolRegistry } from "../tools/registry.js";
import { toSessionUpdates } from "./event-bridge.js";

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw || "{}");
  } catch {
    return { raw };
  }
}

function userText(message: Extract<ChatMessage, { role: "user" }>): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "[Image attachment]")).join("\n");
}

/**
 * Stored details without `terminalId`: the editor's terminal was released when the command ended
 * (and may belong to an earlier connection), so a replay shows the stored output as text instead.
 */
function withoutTerminal(details: unknown): unknown {
  if (!details || typeof details !== "object" || !("terminalId" in details)) return details;
  const { terminalId: _released, ...rest } = details as Record<string, unknown>;
  return rest;
}

/**
 * The updates that show a stored conversation again, built from the same agent events and the
 * same renderers as the live turn, so titles, kinds, diffs and plans look exactly as they did.
 * Pure; never throws for odd history (unknown tools, bad JSON, results without calls).
 */
export function replayUpdates(entries: readonly TranscriptEntry[], tools: ToolRegistry, cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const calls = new Map<string, { call: ToolCall; args: unknown }>();
  const emit = (event: AgentEvent): void => {
    updates.push(...toSessionUpdates(event));
  };
  for (const { message, toolOutcome } of entries) {
    switch (message.role) {
      case "user":
        updates.push({ sessionUpdate: "user_message_chunk", messageId: newId(), content: { type: "text", text: userText(message) } });
        break;
      case "assistant": {
        const messageId = newId();
        if (message.reasoning) emit({ type: "reasoning_delta", messageId, text: message.reasoning });
        if (message.content) emit({ type: "message_delta", messageId, text: message.content });
        for (const call of message.tool_calls ?? []) {
          const args = parseArgs(call.function.arguments);
          const tool = tools.get(call.function.name);
          const description = describeCall(tool, call.function.name, args, { cwd });
          calls.set(call.id, { call, args });
          emit({
            type: "tool_start",
            callId: call.id,
            name: call.function.name,
            args,
            title: description.title,
            kind: tool?.kind ?? "other",
            locations: description.locations,
          });
        }
        break;
      }
      case "tool": {
        const started = calls.get(message.tool_call_id);
        emit({
          type: "tool_end",
          callId: message.tool_call_id,
          name: started?.call.function.name ?? message.name ?? "tool",
          args: started?.args ?? {},
          content: message.content,
          ...(toolOutcome?.details !== undefined ? { details: withoutTerminal(toolOutcome.details) } : {}),
          isError: toolOutcome?.isError ?? false,
        });
        break;
      }
      default:
        break;
    }
  }
  return updates;
}
