import { tmpdir } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { parseConfigText } from "../config/load.js";
import { defaultConfig } from "../config/schema.js";
import { createOpenAiChatProvider } from "../llm/openai-chat.js";
import { sandboxSettings } from "../tools/exec/sandbox/settings.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import { BackgroundReviewer, ReviewCadence, reviewPrompt, reviewSettings, savedAction, type ReviewInput, type TurnSummary } from "./background-review.js";

const both = { memory: true, skills: true };
const turn = (iterations: string[][] = [], answered = true, available = both): TurnSummary => ({ iterations, answered, available });

describe("ReviewCadence", () => {
  it("asks for a memory review every N user turns, counting turns that did not answer too", () => {
    const cadence = new ReviewCadence({ memoryInterval: 3, skillInterval: 0 });
    expect(cadence.afterTurn(turn())).toBeUndefined();
    expect(cadence.afterTurn(turn([], false))).toBeUndefined();
    expect(cadence.afterTurn(turn())).toEqual({ memory: true, skills: false });
    expect(cadence.afterTurn(turn())).toBeUndefined();
  });

  it("asks for a skill review after N tool-calling iterations, across turns", () => {
    const cadence = new ReviewCadence({ memoryInterval: 0, skillInterval: 4 });
    expect(cadence.afterTurn(turn([["read_file"], ["terminal", "patch"]]))).toBeUndefined();
    expect(cadence.afterTurn(turn([["read_file"], ["terminal"]]))).toEqual({ memory: false, skills: true });
    expect(cadence.afterTurn(turn([["read_file"]]))).toBeUndefined();
  });

  it("starts over when the model used memory or skill_manage itself", () => {
    const cadence = new ReviewCadence({ memoryInterval: 2, skillInterval: 2 });
    expect(cadence.afterTurn(turn([["memory"]]))).toBeUndefined();
    expect(cadence.afterTurn(turn([["terminal"], ["skill_manage"]]))).toBeUndefined();
    expect(cadence.afterTurn(turn([["terminal"], ["terminal"]]))).toEqual({ memory: true, skills: true });
  });

  it("keeps a due review for the next answered turn, and never asks for tools the session lacks", () => {
    const cadence = new ReviewCadence({ memoryInterval: 1, skillInterval: 1 });
    expect(cadence.afterTurn(turn([["terminal"]], false))).toBeUndefined();
    expect(cadence.afterTurn(turn([], true, { memory: false, skills: true }))).toEqual({ memory: false, skills: true });
  });
});

describe("reviewSettings", () => {
  const config = (yaml: string) => parseConfigText(yaml, "config.yaml");

  it("is on with Hermes' intervals by default", () => {
    expect(reviewSettings(config(""), {})).toEqual({ memoryInterval: 10, skillInterval: 15 });
  });

  it("reads the intervals and is off when switched off in config or the environment", () => {
    expect(reviewSettings(config("memory:\n  nudge_interval: 2\nskills:\n  creation_nudge_interval: 0\n"), {})).toEqual({ memoryInterval: 2, skillInterval: 0 });
    expect(reviewSettings(config("memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n"), {})).toBeUndefined();
    expect(reviewSettings(config("auxiliary:\n  background_review:\n    enabled: false\n"), {})).toBeUndefined();
    expect(reviewSettings(config(""), { HERMES_BACKGROUND_REVIEW: "off" })).toBeUndefined();
    expect(reviewSettings(config(""), { HERMES_BACKGROUND_REVIEW: "on" })).toBeDefined();
  });
});

describe("savedAction", () => {
  it("names what a successful memory or skill call saved", () => {
    expect(savedAction("memory", { target: "user", action: "add" }, JSON.stringify({ success: true }))).toBe("User profile updated");
    expect(savedAction("memory", { operations: [] }, JSON.stringify({ success: true, target: "memory" }))).toBe("Memory updated");
    expect(savedAction("skill_manage", { action: "create", name: "deploy" }, JSON.stringify({ success: true }))).toBe("Skill 'deploy' created");
  });

  it("says nothing for failures, reads and results that are not JSON", () => {
    expect(savedAction("memory", { target: "user" }, JSON.stringify({ success: false, error: "full" }))).toBeUndefined();
    expect(savedAction("skill_view", { name: "deploy" }, JSON.stringify({ success: true }))).toBeUndefined();
    expect(savedAction("memory", { target: "user" }, "Error: nope")).toBeUndefined();
  });
});

describe("reviewPrompt", () => {
  it("picks the memory, skill or combined review and always offers 'Nothing to save.'", () => {
    for (const kinds of [{ memory: true, skills: false }, { memory: false, skills: true }, both]) expect(reviewPrompt(kinds)).toContain("Nothing to save.");
    expect(reviewPrompt({ memory: true, skills: false })).not.toContain("skill_view");
    expect(reviewPrompt(both)).toContain("memory");
    expect(reviewPrompt(both)).toContain("skill_view");
  });
});

describe("BackgroundReviewer", () => {
  let llm: FakeLlm;
  beforeEach(async () => {
    llm = await startFakeLlm();
  });
  afterEach(async () => {
    await llm.close();
  });

  /** A `memory` tool whose write finishes only when `finish` is called (a write waiting on Python Hermes' lock). */
  function slowMemory() {
    let started!: () => void;
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const tool = defineTool({
      name: "memory",
      description: "memory",
      kind: "other",
      mutating: true,
      params: z.object({ target: z.string(), action: z.string(), content: z.string() }),
      describe: () => ({ title: "memory", locations: [] }),
      execute: async () => {
        started();
        await gate;
        return { content: JSON.stringify({ success: true, target: "user" }) };
      },
    });
    return { tool, running, finish };
  }

  const input = (tools: ToolRegistry): ReviewInput => ({
    kinds: { memory: true, skills: false },
    provider: createOpenAiChatProvider({ id: "custom", baseUrl: llm.baseUrl, apiKey: "no-key-required" }),
    model: "test-model",
    providerLabel: "custom",
    systemPrompt: "SYSTEM",
    tools,
    conversation: [{ role: "user", content: "I prefer short answers." }, { role: "assistant", content: "Noted." }],
    toolContext: { sessionId: "s", cwd: tmpdir(), hermesHome: tmpdir(), config: defaultConfig(), sandbox: sandboxSettings(defaultConfig(), false) },
  });

  it("still tells what a write under way when it was cancelled saved, and waits for it when idle is asked", async () => {
    const memory = slowMemory();
    llm.push({ tool_calls: [{ id: "m1", name: "memory", arguments: { target: "user", action: "add", content: "Short answers." } }] }, { text: "Saved." });
    const reviewer = new BackgroundReviewer();
    reviewer.schedule(input(new ToolRegistry([memory.tool])));
    await memory.running;
    reviewer.cancel("a new turn started");
    expect(reviewer.takeNotice()).toBeUndefined();
    memory.finish();
    await reviewer.idle();
    expect(reviewer.takeNotice()).toBe("💾 Background review: User profile updated");
  });

  it("reviews the conversation as it was when the review was scheduled", async () => {
    llm.push({ text: "Nothing to save." });
    const reviewer = new BackgroundReviewer();
    const scheduled = input(new ToolRegistry([]));
    const conversation = [...scheduled.conversation];
    reviewer.schedule({ ...scheduled, conversation });
    conversation.length = 0; // the session's history cleared (/reset) before the review starts
    await reviewer.idle();
    const sent = llm.requests[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(sent.map((message) => message.content)).toEqual(["SYSTEM", "I prefer short answers.", "Noted.", expect.stringContaining("Review the conversation above")]);
  });

  it("starts nothing after close", async () => {
    const reviewer = new BackgroundReviewer();
    reviewer.close();
    reviewer.schedule(input(new ToolRegistry([])));
    await reviewer.idle();
    expect(llm.requests).toHaveLength(0);
  });
});
