/** The loop against a misbehaving model server: retries, backoff, final failures, stalls and cut streams. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shownReasoning, shownText, testTurn } from "../../test/support/agent-turn.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { sleep } from "../shared/abort.js";
import { runTurn } from "./loop.js";
import { RESUME_NOTE } from "./model-step.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

/**
 * The provider's idle timeout in these tests: short, so a stall ends quickly, yet long enough that a
 * healthy stream on a loaded machine never trips it. Nothing here measures time.
 */
const STALL_MS = 250;

/** The messages of the n-th chat-completions request. */
const sent = (n: number) => llm.requests[n]?.body.messages as { role: string; content: string }[];

describe("retries", () => {
  it("honours Retry-After on a 429 and sends the same request again", async () => {
    llm.push({ status: 429, headers: { "retry-after": "7" } }, { text: "made it" });
    const { input, events, waits, history } = testTurn(llm);
    const result = await runTurn(input);
    expect(result.stopReason).toBe("end_turn");
    expect(waits).toEqual([7_000]);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]?.body).toEqual(llm.requests[0]?.body);
    expect(shownText(events)).toBe("made it");
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "made it" });
  });

  it("caps a Retry-After at 600 s", async () => {
    llm.push({ status: 429, headers: { "retry-after": "3600" } }, { text: "ok" });
    const { input, waits } = testTurn(llm);
    await runTurn(input);
    expect(waits).toEqual([600_000]);
  });

  it("backs off exponentially with jitter between server errors", async () => {
    llm.push({ status: 500 }, { status: 503 }, { text: "recovered" });
    const { input, waits, events } = testTurn(llm, { retry: { baseDelayMs: 1_000, random: () => 0.5 } });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(waits).toEqual([750, 1_500]);
    expect(shownText(events)).toBe("recovered");
  });

  it("gives up after api_max_retries attempts with one actionable line, no stack trace", async () => {
    llm.push({ status: 500, body: { error: { message: "upstream exploded" } } }, { status: 500 }, { status: 500 });
    const { input, events, waits, history } = testTurn(llm, { providerLabel: "openrouter" });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
    const text = shownText(events);
    expect(text).toMatch(/^Error: 500 from openrouter: the provider failed after 3 attempts; try again later/);
    expect(text.split("\n")).toHaveLength(1);
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(events.at(-1)).toMatchObject({ type: "turn_end", stopReason: "end_turn" });
    expect(history).toHaveLength(1);
  });

  it("uses the configured number of attempts", async () => {
    llm.push({ status: 502 }, { status: 502 });
    const { input, waits } = testTurn(llm, { retry: { maxAttempts: 1 } });
    await runTurn(input);
    expect(llm.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("does not retry an auth failure and names the key to check", async () => {
    llm.push({ status: 401, body: { error: { message: "User not found." } } }, { text: "never" });
    const { input, events, waits } = testTurn(llm, { providerLabel: "openrouter", keyHint: "OPENROUTER_API_KEY" });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(shownText(events)).toBe("Error: 401 from openrouter: check OPENROUTER_API_KEY (server said: User not found.)");
  });

  it("does not retry a context overflow or a bad request", async () => {
    llm.push(
      { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens." } } },
      { status: 400, body: { error: { message: "invalid model id" } } },
    );
    const first = testTurn(llm);
    await runTurn(first.input);
    expect(shownText(first.events)).toContain("no longer fits test-model's context window");
    const second = testTurn(llm);
    await runTurn(second.input);
    expect(shownText(second.events)).toContain("check the model name (test-model)");
    expect(llm.requests).toHaveLength(2);
    expect([...first.waits, ...second.waits]).toEqual([]);
  });

  it("stops waiting at once when the turn is cancelled during a backoff", async () => {
    llm.push({ status: 429, headers: { "retry-after": "600" } }, { text: "too late" });
    const controller = new AbortController();
    const { input, events } = testTurn(llm, {
      signal: controller.signal,
      retry: {
        // The real, cancellable sleep, with the cancel arriving as soon as the wait begins.
        sleep: (ms, signal) => {
          const waiting = sleep(ms, signal);
          controller.abort();
          return waiting;
        },
      },
    });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("cancelled");
    expect(llm.requests).toHaveLength(1);
    expect(events.filter((event) => event.type === "turn_end")).toHaveLength(1);
  });
});

describe("stalled and cut streams", () => {
  it("abandons a stream that stalls before any text and retries the same request", async () => {
    llm.push({ text: "never sent", stallAfterChunks: 0 }, { text: "fresh answer" });
    const { input, events, waits, history } = testTurn(llm, {}, { idleTimeoutMs: STALL_MS });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(waits).toHaveLength(1);
    expect(llm.requests[1]?.body).toEqual(llm.requests[0]?.body);
    expect(shownText(events)).toBe("fresh answer");
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "fresh answer" });
    await expect.poll(() => llm.inFlight()).toBe(0);
  });

  it("resumes a stream that stalls mid-answer without showing any text twice", async () => {
    llm.push(
      { text: "Hello world", chunks: ["Hello ", "wor", "ld"], stallAfterChunks: 2 },
      { text: "ld, and more.", chunks: ["ld,", " and more."] },
    );
    const { input, events, history } = testTurn(llm, {}, { idleTimeoutMs: STALL_MS });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(shownText(events)).toBe("Hello world, and more.");
    const ids = new Set(events.flatMap((event) => (event.type === "message_delta" ? [event.messageId] : [])));
    expect(ids.size).toBe(1);
    expect(sent(1).slice(-2)).toEqual([
      { role: "assistant", content: "Hello wor" },
      { role: "user", content: RESUME_NOTE },
    ]);
    expect(sent(1).slice(0, -2)).toEqual(sent(0));
    expect(history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello world, and more.", finish_reason: "stop" },
    ]);
  });

  it("resumes after the connection is cut mid-answer", async () => {
    llm.push({ text: "One two three", chunks: ["One ", "two ", "three"], cutAfterChunks: 2 }, { text: "three." });
    const { input, events, waits, history } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(waits).toHaveLength(1);
    expect(shownText(events)).toBe("One two three.");
    expect(sent(1).at(-2)).toEqual({ role: "assistant", content: "One two " });
    expect(history.at(-1)).toMatchObject({ content: "One two three." });
  });

  it("never runs a tool call whose stream was cut, and runs the retried one once", async () => {
    llm.push(
      { tool_calls: [{ id: "cut_1", name: "echo", arguments: { text: "partial" } }], cutAfterChunks: 2 },
      { tool_calls: [{ id: "ok_1", name: "echo", arguments: { text: "whole" } }] },
      { text: "done" },
    );
    const { input, events, runs, history } = testTurn(llm);
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(runs.get("echo")).toBe(1);
    expect(events.filter((event) => event.type === "tool_start").map((event) => event.callId)).toEqual(["ok_1"]);
    expect(JSON.stringify(history)).not.toContain("cut_1");
    expect(sent(1)).toEqual(sent(0));
  });

  it("keeps the partial answer and explains when every attempt breaks", async () => {
    llm.push(
      { text: "Start of it", chunks: ["Start ", "of it"], stallAfterChunks: 1 },
      { text: "of", chunks: ["of", " it"], stallAfterChunks: 1 },
      { text: "x", stallAfterChunks: 0 },
    );
    const { input, events, history } = testTurn(llm, { providerLabel: "custom" }, { idleTimeoutMs: STALL_MS });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(3);
    const text = shownText(events);
    expect(text.startsWith("Start of\n\nError: custom timed out after 3 attempts (no data from the model for")).toBe(true);
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "Start of", finish_reason: "error" });
  });

  it("retries a stream that stalls during reasoning and shows the answer once", async () => {
    llm.push({ reasoning: "pondering", text: "answer", stallAfterChunks: 1 }, { reasoning: "pondering", text: "answer" });
    const { input, events, history } = testTurn(llm, {}, { idleTimeoutMs: STALL_MS });
    await runTurn(input);
    expect(shownText(events)).toBe("answer");
    expect(shownReasoning(events)).toContain("pondering");
    expect(history.at(-1)).toMatchObject({ content: "answer" });
  });
});
