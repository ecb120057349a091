import { describe, expect, it } from "vitest";
import { defaultConfig } from "../config/schema.js";
import { configSchema } from "../config/schema.js";
import { parseGeneratedTitle, TITLE_PROMPT, titleFromPrompt, titleGenerationEnabled, titleRequest } from "./title.js";

describe("titleFromPrompt", () => {
  it("collapses whitespace, drops code and markdown, cuts at a word", () => {
    expect(titleFromPrompt("## Fix   the *build*\n```\nlots of code\n```")).toBe("Fix the build");
    expect(titleFromPrompt("word ".repeat(30)).endsWith("…")).toBe(true);
  });
});

describe("parseGeneratedTitle", () => {
  it("reads JSON replies, fenced or after reasoning, and plain one-line replies", () => {
    expect(parseGeneratedTitle('{"title": "Fix flaky upload test"}')).toBe("Fix flaky upload test");
    expect(parseGeneratedTitle('```json\n{"title": "Debug auth.ts token refresh"}\n```')).toBe("Debug auth.ts token refresh");
    expect(parseGeneratedTitle('<think>the user wants…</think>{"title":"Rename config loader"}')).toBe("Rename config loader");
    expect(parseGeneratedTitle('Title: "Speed up CI cache."')).toBe("Speed up CI cache");
    expect(parseGeneratedTitle("「ログイン修正」")).toBe("「ログイン修正」");
  });

  it("rejects answers, empty replies, parroted examples and multi-line prose", () => {
    expect(parseGeneratedTitle("")).toBeUndefined();
    expect(parseGeneratedTitle('{"title": ""}')).toBeUndefined();
    expect(parseGeneratedTitle("Sure! Here is how you can fix the failing upload test in your CI pipeline today")).toBeUndefined();
    expect(parseGeneratedTitle('{"title": "Postgres connection pool exhaustion"}')).toBeUndefined();
    expect(parseGeneratedTitle("First line\nSecond line")).toBeUndefined();
    expect(parseGeneratedTitle(`{"title": "${"x".repeat(100)}"}`)).toBeUndefined();
  });
});

describe("titleRequest", () => {
  it("fences the exchange as data after the fixed prompt, capped", () => {
    const [system, user] = titleRequest("a".repeat(5000), "answer");
    expect(system).toEqual({ role: "system", content: TITLE_PROMPT });
    expect(user!.content).toMatch(/^<user_message>\na{1000}\n<\/user_message>$/);
    expect(titleRequest("fix it", "done").at(-1)!.content).toContain("<assistant_answer>\ndone\n</assistant_answer>");
  });
});

describe("titleGenerationEnabled", () => {
  it("is on by default, off by config (ours or Hermes' keys) or HERMES_TITLE_GENERATION", () => {
    expect(titleGenerationEnabled(defaultConfig(), {})).toBe(true);
    expect(titleGenerationEnabled(defaultConfig(), { HERMES_TITLE_GENERATION: "off" })).toBe(false);
    expect(titleGenerationEnabled(configSchema.parse({ auxiliary: { title: { enabled: false } } }), {})).toBe(false);
    expect(titleGenerationEnabled(configSchema.parse({ auxiliary: { title_generation: { model_upgrade_enabled: "no" } } }), {})).toBe(false);
    expect(titleGenerationEnabled(configSchema.parse({ auxiliary: { title_generation: { enabled: true } } }), {})).toBe(true);
  });
});

describe("parseGeneratedTitle against a hostile title model", () => {
  it("drops control characters, ANSI escapes, bidi overrides and zero-width characters", () => {
    expect(parseGeneratedTitle('{"title": "\u202eFix\u0085 \u001b[31mupload\u001b[0m\u200b bug\u2066"}')).toBe("Fix upload bug");
    expect(parseGeneratedTitle("\u001b]0;owned\u0007Rename\u0000 the\tparser")).toBe("Rename the parser");
  });

  it("never answers JSON text itself as the title", () => {
    expect(parseGeneratedTitle('{"title": "Fix\u0001 it", "x": 1}')).toBe("Fix it");
    expect(parseGeneratedTitle('{"title": 5}')).toBeUndefined();
  });

  it("refuses a huge reply at once", () => {
    expect(parseGeneratedTitle("{".repeat(10_000_000))).toBeUndefined();
    expect(parseGeneratedTitle(`${"<think>".repeat(1_000_000)}`)).toBeUndefined();
  });

  it("masks a secret the title would show", () => {
    const title = parseGeneratedTitle('{"title": "Use sk-proj-abcdefghijklmnopqrstuvwx key"}');
    expect(title).not.toContain("abcdefghijklmnop");
  });
});

describe("titleFromPrompt with a secret in the prompt", () => {
  it("masks it", () => {
    expect(titleFromPrompt("call it with OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx please")).not.toContain("abcdefghijklmnop");
  });
});
