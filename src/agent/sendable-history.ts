import type { ChatMessage } from "../llm/types.js";

/**
 * The messages as a provider may be sent them: every tool call whose arguments are not a JSON object
 * (malformed, truncated, empty, or an array or scalar) carries `{}` instead, so a strict provider does
 * not reject the whole conversation. The stored history keeps the model's text (the call's error result
 * quotes it). Pure; unchanged messages are returned as they are. Each history message is checked
 * once (history messages are never mutated), so a long turn does not re-parse every earlier call's
 * arguments on each model call.
 */
export function sendableHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (message.role !== "assistant" || !message.tool_calls?.length) return message;
    let sendable = checked.get(message);
    if (!sendable) {
      sendable = withSendableArguments(message);
      checked.set(message, sendable);
    }
    return sendable;
  });
}

const checked = new WeakMap<ChatMessage, ChatMessage>();

function withSendableArguments(message: ChatMessage): ChatMessage {
  if (message.role !== "assistant" || !message.tool_calls?.some((call) => !isJsonObject(call.function.arguments))) return message;
  const toolCalls = message.tool_calls.map((call) =>
    isJsonObject(call.function.arguments) ? call : { ...call, function: { ...call.function, arguments: "{}" } },
  );
  return { ...message, tool_calls: toolCalls };
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}
