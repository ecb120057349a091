import { describe, expect, it } from "vitest";
import { addCacheBreakpoints, CONTINUATION_TEXT, EMPTY_USER_TEXT, toAnthropicConversation, toAnthropicTools } from "./anthropic-messages.js";
import type { ChatMessage } from "./types.js";

describe("toAnthropicConversation", () => {
  it("opens with a placeholder user turn when the history starts with the assistant, and fills an empty user turn", () => {
    const { system, messages } = toAnthropicConversation([
      { role: "assistant", content: "summary of earlier work" },
      { role: "user", content: "" },
    ]);
    expect(system).toEqual([]);
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: CONTINUATION_TEXT }] },
      { role: "assistant", content: [{ type: "text", text: "summary of earlier work" }] },
      { role: "user", content: [{ type: "text", text: EMPTY_USER_TEXT }] },
    ]);
  });

  it("drops an empty assistant turn, merging the user turns around it", () => {
    const { messages } = toAnthropicConversation([
      { role: "user", content: "a" },
      { role: "assistant", content: "  " },
      { role: "user", content: "b" },
    ]);
    expect(messages).toEqual([{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }]);
  });

  it("makes tool-call ids from other providers API-safe on both ends, and keeps several system messages", () => {
    const history: ChatMessage[] = [
      { role: "system", content: "one" },
      { role: "system", content: "two" },
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "functions.read_file:0", type: "function", function: { name: "read_file", arguments: "[1]" } }] },
      { role: "tool", tool_call_id: "functions.read_file:0", content: "" },
    ];
    const conversation = toAnthropicConversation(history);
    expect(conversation.system.map((block) => block.text)).toEqual(["one", "two"]);
    expect(conversation.messages[1]?.content).toEqual([{ type: "tool_use", id: "functions_read_file_0", name: "read_file", input: {} }]);
    expect(conversation.messages[2]?.content).toEqual([{ type: "tool_result", tool_use_id: "functions_read_file_0", content: "(no output)" }]);
    addCacheBreakpoints(conversation);
    expect(conversation.system[0]?.cache_control).toBeUndefined();
    expect(conversation.system[1]?.cache_control).toEqual({ type: "ephemeral" });
  });

  it("turns image URLs into image blocks and unsupported images into a note", () => {
    const { messages } = toAnthropicConversation([
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/jpg;base64,AAAA" } },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
          { type: "image_url", image_url: { url: "data:image/tiff;base64,BBBB" } },
        ],
      },
    ]);
    expect(messages[0]?.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      { type: "text", text: "[image omitted: image/tiff is not a supported image type]" },
    ]);
  });

  it("does not modify the history it converts", () => {
    const history: ChatMessage[] = [{ role: "system", content: "s" }, { role: "user", content: "u" }];
    const copy = structuredClone(history);
    addCacheBreakpoints(toAnthropicConversation(history));
    expect(history).toEqual(copy);
  });
});

describe("toAnthropicTools", () => {
  it("always declares an object input schema", () => {
    expect(toAnthropicTools([{ name: "t", description: "d", parameters: { properties: {} } }])).toEqual([
      { name: "t", description: "d", input_schema: { properties: {}, type: "object" } },
    ]);
  });

  it("opens an assistant turn with its signed thinking blocks, verbatim and in order, and sends no unsigned or other-provider reasoning", () => {
    const call = { id: "toolu_1", type: "function" as const, function: { name: "todo", arguments: "{}" } };
    const { messages } = toAnthropicConversation([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "Working.",
        reasoning: "shown thoughts",
        reasoning_details: [
          { type: "thinking", thinking: "step one", signature: "sig-1" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "thinking", thinking: "unsigned", signature: "" },
        ],
        tool_calls: [call],
      },
      { role: "tool", tool_call_id: "toolu_1", content: "ok" },
      // another provider's answer: reasoning text, no signed blocks
      { role: "assistant", content: "All done.", reasoning: "openai thoughts" },
      { role: "user", content: "thanks" },
      // thinking alone (cut while thinking) sends nothing
      { role: "assistant", content: null, reasoning_details: [{ type: "thinking", thinking: "cut", signature: "sig-2" }] },
      { role: "user", content: "again" },
    ]);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "step one", signature: "sig-1" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Working." },
        { type: "tool_use", id: "toolu_1", name: "todo", input: {} },
      ],
    });
    expect(messages[3]).toEqual({ role: "assistant", content: [{ type: "text", text: "All done." }] });
    expect(messages).toHaveLength(5);
    expect(JSON.stringify(messages)).not.toContain("sig-2");
  });
});
