import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { createOpenAiChatProvider } from "../llm/openai-chat.js";
import { createSummarizer, stripThinking } from "./summarizer.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

function summarizer() {
  const provider = createOpenAiChatProvider({ id: "custom", baseUrl: llm.baseUrl, apiKey: "no-key-required" });
  return createSummarizer(() => provider, () => "test-model");
}

describe("createSummarizer", () => {
  it("answers the model's text without reasoning, sending no tools and the output cap", async () => {
    llm.push({ reasoning: "let me think", text: "<think>hidden</think>## Goal\nship" });
    const text = await summarizer()([{ role: "user", content: "summarize" }], new AbortController().signal, { maxTokens: 2_000 });
    expect(text).toBe("## Goal\nship");
    const body = llm.requests[0]?.body;
    expect(body.tools).toBeUndefined();
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(2_000);
  });

  it("rejects naming the provider when the call fails", async () => {
    llm.push({ status: 400, body: { error: { message: "context too long" } } });
    await expect(summarizer()([{ role: "user", content: "x" }], new AbortController().signal, { maxTokens: 100 })).rejects.toThrow(/summary request to custom failed/);
  });
});

describe("stripThinking", () => {
  it("removes closed and unclosed thinking blocks", () => {
    expect(stripThinking("<thinking>a</thinking>b <think>c")).toBe("b");
  });
});

describe("createSummarizer against a reply far past its output cap", () => {
  it("rejects a reply longer than the token budget allows instead of collecting it", async () => {
    llm.push({ text: "{".repeat(2_000_000) });
    await expect(summarizer()([{ role: "user", content: "x" }], new AbortController().signal, { maxTokens: 512 })).rejects.toThrow(/longer than/);
  });
});

describe("stripThinking on hostile text", () => {
  it("handles a huge run of unclosed tags in one pass, keeping the text before them", () => {
    expect(stripThinking(`keep${"<think>".repeat(300_000)}`)).toBe("keep");
    expect(stripThinking(`a<THINK>x</think>b${"<reasoning>y</reasoning>".repeat(100_000)}c`)).toBe("abc");
  });
});
