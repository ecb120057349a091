/**
 * Our OpenAI-shaped history → an Anthropic Messages API request body (system, messages, tools),
 * with prompt-cache breakpoints. Pure; never throws; the input is never modified.
 */
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { ChatMessage, ReasoningDetail, ToolSchema, UserContentPart } from "./types.js";

export interface AnthropicConversation {
  /** Every system message's text, in order; empty when there is none. */
  system: TextBlockParam[];
  /** Alternating user / assistant turns, starting with a user turn. */
  messages: MessageParam[];
}

/** The placeholder for a user turn that would otherwise be empty (the API rejects empty content). */
export const EMPTY_USER_TEXT = "(empty message)";
/** Opens a conversation whose first kept turn is the assistant's (after compression, for instance). */
export const CONTINUATION_TEXT = "(conversation continues)";

type Block = ContentBlockParam;
type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";
const IMAGE_TYPES: Readonly<Record<string, ImageMediaType>> = {
  "image/jpeg": "image/jpeg",
  "image/jpg": "image/jpeg",
  "image/png": "image/png",
  "image/gif": "image/gif",
  "image/webp": "image/webp",
};

/**
 * Converts history to Messages API turns: system messages go to `system`; an assistant's text and
 * `tool_calls` become text and `tool_use` blocks (arguments parsed; unparseable ones become `{}`,
 * the tool result already tells the model what was wrong; ids are made API-safe, see `toolId`);
 * tool messages become `tool_result` blocks of a user turn. Consecutive turns of one role are
 * merged into one turn (so consecutive tool results share a user turn, with the results first),
 * blank text is dropped, `image_url` parts become image blocks (data URLs inline, http(s) URLs by
 * reference). A conversation opening with the assistant gets a placeholder user turn first.
 * An assistant's `reasoning_details` (Anthropic thinking blocks) open its content, verbatim and in
 * order, as the API requires while tool use continues (it ignores those it no longer needs); a
 * thinking block without a signature is left out (the API would refuse it), and so is the plain
 * `reasoning` text, which other providers leave unsigned; thinking with neither text nor tool
 * calls after it is not sent.
 */
export function toAnthropicConversation(history: readonly ChatMessage[]): AnthropicConversation {
  const system: TextBlockParam[] = [];
  const turns: { role: "user" | "assistant"; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of history) {
    switch (message.role) {
      case "system":
        if (message.content.trim() !== "") system.push({ type: "text", text: message.content });
        break;
      case "user": {
        const blocks = userBlocks(message.content);
        push("user", blocks.length > 0 ? blocks : [{ type: "text", text: EMPTY_USER_TEXT }]);
        break;
      }
      case "assistant":
        push("assistant", assistantBlocks(message));
        break;
      case "tool": {
        const result: ToolResultBlockParam = { type: "tool_result", tool_use_id: toolId(message.tool_call_id), content: message.content === "" ? "(no output)" : message.content };
        push("user", [result]);
        break;
      }
    }
  }
  if (turns[0]?.role !== "user") turns.unshift({ role: "user", content: [{ type: "text", text: CONTINUATION_TEXT }] });
  const messages: MessageParam[] = turns.map(({ role, content }) => {
    if (role !== "user") return { role, content };
    const results = content.filter((block) => block.type === "tool_result");
    return { role, content: results.length > 0 ? [...results, ...content.filter((block) => block.type !== "tool_result")] : content };
  });
  return { system, messages };
}

/**
 * Marks prompt-cache breakpoints as Hermes does ("system and 3"): `cache_control: {type:
 * "ephemeral"}` on the last system block and on the last cacheable block of each of the last
 * `lastMessages` turns, so at most 1 + `lastMessages` (≤ 4, the API's limit) breakpoints. Modifies
 * `conversation` in place (it is the caller's own copy from `toAnthropicConversation`).
 */
export function addCacheBreakpoints(conversation: AnthropicConversation, lastMessages = 3): void {
  const lastSystem = conversation.system.at(-1);
  if (lastSystem) lastSystem.cache_control = { type: "ephemeral" };
  for (const message of conversation.messages.slice(-Math.max(0, Math.min(lastMessages, 3)))) {
    if (typeof message.content === "string") {
      message.content = [{ type: "text", text: message.content, cache_control: { type: "ephemeral" } }];
      continue;
    }
    const block = [...message.content].reverse().find(isCacheable);
    if (block) (block as { cache_control?: unknown }).cache_control = { type: "ephemeral" };
  }
}

/** Tool schemas as Messages API tools (`input_schema` always of type object). */
export function toAnthropicTools(tools: readonly ToolSchema[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.parameters, type: "object" },
  }));
}

function isCacheable(block: Block): boolean {
  return block.type === "text" || block.type === "image" || block.type === "tool_use" || block.type === "tool_result" || block.type === "document";
}

function userBlocks(content: string | UserContentPart[]): Block[] {
  if (typeof content === "string") return content.trim() === "" ? [] : [{ type: "text", text: content }];
  const blocks: Block[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text.trim() !== "") blocks.push({ type: "text", text: part.text });
    } else {
      blocks.push(imageBlock(part.image_url.url));
    }
  }
  return blocks;
}

/** A data URL of a supported type inline, an http(s) URL by reference, anything else as a note. */
function imageBlock(url: string): ImageBlockParam | TextBlockParam {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) {
    const mediaType = IMAGE_TYPES[(data[1] ?? "").toLowerCase()];
    if (mediaType) return { type: "image", source: { type: "base64", media_type: mediaType, data: data[2] ?? "" } };
    return { type: "text", text: `[image omitted: ${data[1]} is not a supported image type]` };
  }
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
  return { type: "text", text: "[image omitted: unsupported image reference]" };
}

function assistantBlocks(message: Extract<ChatMessage, { role: "assistant" }>): Block[] {
  const blocks: Block[] = [];
  if (message.content && message.content.trim() !== "") blocks.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) {
    const use: ToolUseBlockParam = { type: "tool_use", id: toolId(call.id), name: call.function.name, input: parseInput(call.function.arguments) };
    blocks.push(use);
  }
  // Thinking alone (an answer cut while it thought) opens nothing: the turn is left out as before.
  return blocks.length > 0 ? [...thinkingBlocks(message.reasoning_details), ...blocks] : [];
}

/** Stored thinking blocks as the API returned them: signed thinking and redacted thinking, in order; anything else is left out. */
function thinkingBlocks(details: readonly ReasoningDetail[] | undefined): Block[] {
  const blocks: Block[] = [];
  for (const detail of details ?? []) {
    if (detail.type === "thinking" && typeof detail.signature === "string" && detail.signature !== "" && typeof detail.thinking === "string") {
      const block: ThinkingBlockParam = { type: "thinking", thinking: detail.thinking, signature: detail.signature };
      blocks.push(block);
    } else if (detail.type === "redacted_thinking" && typeof detail.data === "string" && detail.data !== "") {
      const block: RedactedThinkingBlockParam = { type: "redacted_thinking", data: detail.data };
      blocks.push(block);
    }
  }
  return blocks;
}

/**
 * A tool-call id the Messages API accepts (`^[a-zA-Z0-9_-]+$`): ids other providers made
 * (`functions.read_file:0`) get `_` for each other character, the same on both ends of the pair.
 */
function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "toolu_unnamed";
}

function parseInput(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
