import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { toolEndEvent, toolStartEvent } from "../agent/events.js";
import type { ChatMessage } from "../llm/types.js";
import { correctionWords, isRedirectedAssistant, REDIRECT_PLACEHOLDER } from "../agent/redirect.js";
import type { TranscriptEntry } from "../runtime/runtime.js";
import { newId } from "../shared/ids.js";
import { prepareToolCall, type PreparedToolCall, type ToolLookup } from "../tools/prepared-call.js";
import type { ToolRegistry } from "../tools/registry.js";
import { decodeToolOutcome, type TypedToolOutcome } from "../tools/typed-call.js";
import { toSessionUpdates } from "./event-bridge.js";
import { contentText } from "../shared/content-text.js";

function userText(message: Extract<ChatMessage, { role: "user" }>): string {
  return contentText(message.content);
}

/**
 * Stored terminal details without `terminalId`: the editor's terminal was released when the
 * command ended (and may belong to an earlier connection), so a replay shows the stored output as
 * text instead.
 */
function released(outcome: TypedToolOutcome): unknown {
  if (outcome.tool !== "terminal" || outcome.details?.terminalId === undefined) return outcome.details;
  const { terminalId: _released, ...rest } = outcome.details;
  return rest;
}

const NO_TOOLS: ToolLookup = { get: () => undefined };

/** A result whose call is not in the transcript: known by its id and name only. */
function orphanCall(message: Extract<ChatMessage, { role: "tool" }>, cwd: string): PreparedToolCall {
  const call = { id: message.tool_call_id, type: "function" as const, function: { name: message.name ?? "tool", arguments: "" } };
  return prepareToolCall(call, NO_TOOLS, { cwd });
}

/**
 * The updates that show a stored conversation again, built from the same prepared calls, the same
 * event builders and the same renderers as the live turn, so titles, kinds, diffs and plans look
 * exactly as they did. Stored details are decoded once, here (`decodeToolOutcome`): details that
 * no longer fit their tool's type replay as the result's plain text. Pure; never throws for odd
 * history (unknown tools, bad JSON, results without calls, undecodable details).
 */
export function replayUpdates(entries: readonly TranscriptEntry[], tools: ToolRegistry, cwd: string): SessionUpdate[] {
  return [...streamReplay(entries, tools, cwd)];
}

/**
 * `replayUpdates` built as it is consumed, entry by entry, so a long conversation can be sent
 * while it is shown (`UpdateSender.sendAll`) without all of its updates existing at once. The
 * same updates in the same order; `entries` must not change while it is consumed.
 */
export function* streamReplay(entries: readonly TranscriptEntry[], tools: ToolRegistry, cwd: string): Generator<SessionUpdate, void, undefined> {
  const calls = new Map<string, PreparedToolCall>();
  let previous: ChatMessage | undefined;
  for (const { message, toolOutcome } of entries) {
    const before = previous;
    previous = message;
    switch (message.role) {
      case "user": {
        // A correction that redirected a turn shows as the user typed it (the model got it with context).
        const text = userText(message);
        const shown = typeof message.content === "string" ? (correctionWords(message.content, before) ?? text) : text;
        yield { sessionUpdate: "user_message_chunk", messageId: newId(), content: { type: "text", text: shown } };
        break;
      }
      case "assistant": {
        const messageId = newId();
        if (message.reasoning) yield* toSessionUpdates({ type: "reasoning_delta", messageId, text: message.reasoning });
        const placeholder = isRedirectedAssistant(message) && message.content === REDIRECT_PLACEHOLDER;
        if (message.content && !placeholder) yield* toSessionUpdates({ type: "message_delta", messageId, text: message.content });
        for (const call of message.tool_calls ?? []) {
          const prepared = prepareToolCall(call, tools, { cwd });
          calls.set(call.id, prepared);
          yield* toSessionUpdates(toolStartEvent(prepared));
        }
        break;
      }
      case "tool": {
        const prepared = calls.get(message.tool_call_id) ?? orphanCall(message, cwd);
        const outcome = decodeToolOutcome(prepared.name, toolOutcome);
        yield* toSessionUpdates(toolEndEvent(prepared, { content: message.content, isError: outcome.isError, details: released(outcome) }));
        break;
      }
      default:
        break;
    }
  }
}
