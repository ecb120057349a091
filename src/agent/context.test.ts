import { describe, expect, it } from "vitest";
import type { ChatMessage, ToolSchema } from "../llm/types.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  estimateMessageTokens,
  estimateMessagesTokens,
  estimateRequestTokens,
  estimateTextTokens,
  estimateToolsTokens,
  IMAGE_TOKENS,
  knownContextWindow,
  resolveContextWindow,
} from "./context.js";

describe("token estimate", () => {
  it("counts about four characters per token", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcd")).toBe(1);
    expect(estimateTextTokens("a".repeat(4_001))).toBe(1_001);
  });

  it("grows with content and counts tool-call arguments and tool results", () => {
    const small = estimateMessageTokens({ role: "user", content: "hi" });
    const big = estimateMessageTokens({ role: "user", content: "x".repeat(4_000) });
    expect(big - small).toBeGreaterThanOrEqual(999);
    const call: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "write_file", arguments: JSON.stringify({ content: "y".repeat(8_000) }) } }],
    };
    expect(estimateMessageTokens(call)).toBeGreaterThan(2_000);
    expect(estimateMessageTokens({ role: "tool", tool_call_id: "c1", content: "z".repeat(2_000) })).toBeGreaterThan(500);
  });

  it("does not count stored reasoning, which is not sent back", () => {
    const plain = estimateMessageTokens({ role: "assistant", content: "done" });
    expect(estimateMessageTokens({ role: "assistant", content: "done", reasoning: "r".repeat(10_000) })).toBe(plain);
  });

  it("counts an image as a flat amount, not its base64 length", () => {
    const dataUrl = `data:image/png;base64,${"A".repeat(400_000)}`;
    const message: ChatMessage = { role: "user", content: [{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url: dataUrl } }] };
    const tokens = estimateMessageTokens(message);
    expect(tokens).toBeGreaterThanOrEqual(IMAGE_TOKENS);
    expect(tokens).toBeLessThan(IMAGE_TOKENS + 50);
  });

  it("sums a request: system prompt, messages and tool schemas", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "a".repeat(400) },
      { role: "assistant", content: "b".repeat(400) },
    ];
    const tools: ToolSchema[] = [{ name: "read_file", description: "d".repeat(400), parameters: { type: "object" } }];
    const system = "s".repeat(800);
    const total = estimateRequestTokens({ systemPrompt: system, messages, tools });
    expect(total).toBe(estimateMessageTokens({ role: "system", content: system }) + estimateMessagesTokens(messages) + estimateToolsTokens(tools));
    expect(total).toBeGreaterThan(500);
    expect(estimateToolsTokens([])).toBe(0);
  });
});

describe("context window", () => {
  it("prefers config, then the provider's list, then the table, then 128k", () => {
    const lookup = (model: string) => (model === "listed" ? 32_000 : undefined);
    expect(resolveContextWindow("claude-sonnet-4", { configured: 50_000, lookup })).toEqual({ tokens: 50_000, source: "config" });
    expect(resolveContextWindow("listed", { lookup })).toEqual({ tokens: 32_000, source: "provider" });
    expect(resolveContextWindow("claude-sonnet-4", { lookup })).toEqual({ tokens: 200_000, source: "table" });
    expect(resolveContextWindow("my-private-model")).toEqual({ tokens: DEFAULT_CONTEXT_WINDOW, source: "default" });
  });

  it("knows common models, with or without a vendor prefix", () => {
    expect(knownContextWindow("anthropic/claude-3.5-sonnet")).toBe(200_000);
    expect(knownContextWindow("gpt-4.1-mini")).toBe(1_047_576);
    expect(knownContextWindow("openai/gpt-4o")).toBe(128_000);
    expect(knownContextWindow("gpt-5")).toBe(400_000);
    expect(knownContextWindow("google/gemini-2.5-pro")).toBe(1_048_576);
    expect(knownContextWindow("qwen/qwen3-coder")).toBe(262_144);
    expect(knownContextWindow("llama3.1:8b")).toBe(131_072);
    expect(knownContextWindow("deepseek/deepseek-chat")).toBe(128_000);
    expect(knownContextWindow("o3-mini")).toBe(200_000);
    expect(knownContextWindow("nousresearch/hermes-4-70b")).toBe(131_072);
    expect(knownContextWindow("unknown-thing")).toBeUndefined();
  });
});
