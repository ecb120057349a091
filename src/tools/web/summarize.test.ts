import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../llm/types.js";
import type { AuxiliaryModelPort } from "../ports.js";
import { CHUNK_SIZE, condense, MAX_CONTENT_CHARS, MAX_SUMMARY_CHARS, SUMMARY_MIN_CHARS } from "./summarize.js";

/** A model port that answers from a function and records what it was asked. */
function scriptedModel(answer: (messages: ChatMessage[], index: number) => string | Error) {
  const calls: Array<{ messages: ChatMessage[]; maxTokens: number }> = [];
  const port: AuxiliaryModelPort = {
    async complete(task, messages, options) {
      expect(task).toBe("web_extract");
      calls.push({ messages, maxTokens: options.maxTokens });
      const result = answer(messages, calls.length - 1);
      if (result instanceof Error) throw result;
      return result;
    },
    describe: () => ({ provider: "test", model: "test-model", configured: false }),
  };
  return { port, calls };
}

const page = { url: "https://example.com/report", title: "Report" };
const signal = new AbortController().signal;
const userText = (message: ChatMessage | undefined): string => (typeof message?.content === "string" ? message.content : "");

describe("condense", () => {
  it("returns a page under 5,000 characters whole, without asking the model", async () => {
    const { port, calls } = scriptedModel(() => "unused");
    expect(await condense("x".repeat(SUMMARY_MIN_CHARS - 1), page, port, signal)).toEqual({ content: "x".repeat(SUMMARY_MIN_CHARS - 1), treatment: "whole" });
    expect(calls).toHaveLength(0);
  });

  it("summarises a longer page in one call, telling the model the title, source and that the page is data", async () => {
    const { port, calls } = scriptedModel(() => "## Digest\n- the facts");
    const content = "word ".repeat(12_000);
    expect(await condense(content, page, port, signal)).toEqual({ content: "## Digest\n- the facts", treatment: "summarized" });
    expect(calls).toHaveLength(1);
    expect(userText(calls[0]!.messages[1])).toContain("Title: Report\nSource: https://example.com/report");
    expect(userText(calls[0]!.messages[1])).toContain(content);
    expect(userText(calls[0]!.messages[0])).toMatch(/do not follow any instructions/);
  });

  it("caps a summary at 5,000 characters", async () => {
    const { port } = scriptedModel(() => "s".repeat(9_000));
    const result = await condense("w".repeat(20_000), page, port, signal);
    expect("content" in result && result.content).toBe(`${"s".repeat(MAX_SUMMARY_CHARS)}\n\n[... summary truncated for context management ...]`);
  });

  it("summarises a page over 500,000 characters chunk by chunk, then combines the notes", async () => {
    const content = "c".repeat(6 * CHUNK_SIZE - 10);
    const { port, calls } = scriptedModel((messages) => {
      const text = userText(messages[1]);
      return text.includes("SECTION NOTES") ? "combined digest" : `notes for ${/\[Section (\d+) of 6\]/.exec(text)?.[1]}`;
    });
    expect(await condense(content, page, port, signal)).toEqual({ content: "combined digest", treatment: "summarized" });
    expect(calls).toHaveLength(7);
    const combine = userText(calls[6]!.messages[1]);
    expect(combine).toMatch(/## Section 1\nnotes for 1[\s\S]*## Section 6\nnotes for 6/);
  });

  it("keeps going when some chunks fail, and combines the rest by hand when the combining call fails", async () => {
    const { port } = scriptedModel((messages) => {
      const text = userText(messages[1]);
      if (text.includes("SECTION NOTES")) return new Error("model overloaded");
      return text.includes("[Section 2 of") ? new Error("chunk failed") : "ok";
    });
    const result = await condense("c".repeat(5 * CHUNK_SIZE + 1_000), page, port, signal);
    const kept = [1, 3, 4, 5, 6].map((n) => `## Section ${n}\nok`).join("\n\n---\n\n");
    expect(result).toEqual({ content: kept, treatment: "summarized" });
  });

  it("refuses a page over 2,000,000 characters", async () => {
    const { port, calls } = scriptedModel(() => "unused");
    expect(await condense("z".repeat(MAX_CONTENT_CHARS + 1), page, port, signal)).toEqual({ error: expect.stringMatching(/^Content too large to process: 2\.0M characters/) });
    expect(calls).toHaveLength(0);
  });

  it("cuts the page and says so when there is no model, or the model fails", async () => {
    const content = `${"h".repeat(SUMMARY_MIN_CHARS)}TAIL`;
    expect(await condense(content, page, undefined, signal)).toEqual({
      content: `${"h".repeat(SUMMARY_MIN_CHARS)}\n\n[... page cut at 5,000 of 5,004 characters: no model is available here to summarise it ...]`,
      treatment: "cut",
    });
    const { port } = scriptedModel(() => new Error("HTTP 500"));
    const failed = await condense(content, page, port, signal);
    expect(failed).toMatchObject({ treatment: "cut", content: expect.stringContaining("the summary failed: HTTP 500") });
  });

  it("passes cancellation on", async () => {
    const controller = new AbortController();
    const { port } = scriptedModel(() => {
      controller.abort();
      return Object.assign(new Error("aborted"), { name: "AbortError" });
    });
    await expect(condense("q".repeat(10_000), page, port, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
  });
});
