/** The fallback chain in the loop, against two real scripted servers: when it falls back, what the user sees, what it never does. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { shownText, testTurn } from "../../test/support/agent-turn.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { createOpenAiChatProvider } from "../llm/openai-chat.js";
import { sleep } from "../shared/abort.js";
import type { AgentEvent } from "./events.js";
import { fallsBack, type FallbackCandidate, type TurnModel } from "./fallback.js";
import { runTurn } from "./loop.js";
import { RESUME_NOTE } from "./model-step.js";

let main: FakeLlm;
let backup: FakeLlm;
let spare: FakeLlm;
beforeEach(async () => {
  [main, backup, spare] = await Promise.all([startFakeLlm(), startFakeLlm(), startFakeLlm()]);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all([main.close(), backup.close(), spare.close()]);
});

/** A candidate on `llm` that counts how often it was resolved. */
function candidate(llm: FakeLlm, name: string, model: string, extra: Partial<TurnModel> = {}): FallbackCandidate & { resolved: number } {
  const result = {
    label: `${name}:${model}`,
    resolved: 0,
    resolve: async (): Promise<TurnModel> => {
      result.resolved += 1;
      return {
        provider: createOpenAiChatProvider({ id: name, baseUrl: llm.baseUrl, apiKey: "no-key-required" }),
        model,
        providerLabel: name,
        label: `${name}:${model}`,
        reasoningEffort: false,
        ...extra,
      };
    },
  };
  return result;
}

/** The notice lines the turn showed (message text outside the model's own messages). */
const notices = (events: AgentEvent[]) => events.flatMap((event) => (event.type === "message_delta" && event.text.includes("↪") ? [event.text.trim()] : []));
const down = () => ({ status: 503 }) as const;

describe("fallback chain", () => {
  it("sends the request to the next model after the main one keeps failing, and says which model answered", async () => {
    main.push(down(), down(), down());
    backup.push({ text: "answer from the backup" });
    const fallback = candidate(backup, "backup", "fb-model");
    const { input, events, waits, history } = testTurn(main, { providerLabel: "custom", fallbacks: [fallback] });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("end_turn");
    expect(main.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
    expect(backup.requests[0]?.body.model).toBe("fb-model");
    expect(backup.requests[0]?.body.messages).toEqual(main.requests[0]?.body.messages);
    expect(notices(events)).toEqual(["↪ Answering with backup:fb-model (fallback: custom:test-model failed: server error, HTTP 503, 3 attempts)"]);
    expect(shownText(events)).toMatch(/\n\nanswer from the backup$/);
    // The notice is for the user only: history holds the answer alone.
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "answer from the backup" });
    expect(JSON.stringify(history)).not.toContain("↪");
  });

  it("starts the next turn on the main model again", async () => {
    main.push(down(), down(), down(), { text: "main is back" });
    backup.push({ text: "backup answer" });
    const fallback = candidate(backup, "backup", "fb-model");
    const first = testTurn(main, { fallbacks: [fallback] });
    await runTurn(first.input);
    const second = testTurn(main, { fallbacks: [fallback], history: first.history, text: "again" });
    expect((await runTurn(second.input)).stopReason).toBe("end_turn");
    expect(main.requests).toHaveLength(4);
    expect(backup.requests).toHaveLength(1);
    expect(shownText(second.events)).toBe("main is back");
    expect(notices(second.events)).toEqual([]);
  });

  it("keeps the rest of the turn on the fallback that answered", async () => {
    main.push(down(), down(), down());
    backup.push({ tool_calls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "done on the backup" });
    const { input, events, runs } = testTurn(main, { fallbacks: [candidate(backup, "backup", "fb-model")] });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(runs.get("echo")).toBe(1);
    expect(main.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(2);
    expect(notices(events)).toHaveLength(1);
  });

  it("does not fall back when the turn is cancelled during the main model's retries", async () => {
    main.push({ status: 503, headers: { "retry-after": "600" } }, { text: "too late" });
    const fallback = candidate(backup, "backup", "fb-model");
    const controller = new AbortController();
    const { input, events } = testTurn(main, {
      signal: controller.signal,
      fallbacks: [fallback],
      retry: {
        sleep: (ms, signal) => {
          const waiting = sleep(ms, signal);
          controller.abort();
          return waiting;
        },
      },
    });
    expect((await runTurn(input)).stopReason).toBe("cancelled");
    expect(fallback.resolved).toBe(0);
    expect(backup.requests).toHaveLength(0);
    expect(notices(events)).toEqual([]);
  });

  it("does not fall back on a bad request (400) or a context overflow: the same request would fail anywhere", async () => {
    main.push(
      { status: 400, body: { error: { message: "Unknown parameter: frobnicate" } } },
      { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens." } } },
    );
    const fallback = candidate(backup, "backup", "fb-model");
    const bad = testTurn(main, { providerLabel: "custom", fallbacks: [fallback] });
    await runTurn(bad.input);
    expect(shownText(bad.events)).toMatch(/^Error: 400 from custom: the request was rejected/);
    const overflow = testTurn(main, { providerLabel: "custom", fallbacks: [fallback] });
    await runTurn(overflow.input);
    expect(shownText(overflow.events)).toContain("no longer fits");
    expect(fallback.resolved).toBe(0);
    expect(backup.requests).toHaveLength(0);
  });

  it("falls back at once on a rejected key or a spent quota (they are not retried)", async () => {
    main.push({ status: 401 }, { status: 402, body: { error: { message: "Insufficient credits" } } });
    backup.push({ text: "one" }, { text: "two" });
    const fallback = candidate(backup, "backup", "fb-model");
    const auth = testTurn(main, { fallbacks: [fallback] });
    await runTurn(auth.input);
    expect(notices(auth.events)[0]).toMatch(/failed: API key rejected, HTTP 401\)$/);
    const quota = testTurn(main, { fallbacks: [fallback] });
    await runTurn(quota.input);
    expect(notices(quota.events)[0]).toMatch(/failed: quota or credit used up, HTTP 402\)$/);
    expect(main.requests).toHaveLength(2);
    expect(shownText(quota.events)).toMatch(/two$/);
    // Each turn resolves what it reaches (the runtime's candidates keep their first resolution).
    expect(fallback.resolved).toBe(2);
  });

  it("does not wait out a spent quota: a 429 that says so goes to the fallback without retries", async () => {
    main.push({ status: 429, headers: { "retry-after": "20" }, body: { error: { message: "You exceeded your current quota", code: "insufficient_quota" } } });
    backup.push({ text: "paid backup" });
    const { input, events, waits } = testTurn(main, { fallbacks: [candidate(backup, "backup", "fb-model")] });
    await runTurn(input);
    expect(waits).toEqual([]);
    expect(main.requests).toHaveLength(1);
    expect(notices(events)[0]).toMatch(/failed: quota or credit used up, HTTP 429\)$/);
  });

  it("skips an entry that cannot be resolved, with a log line, and goes on to the next", async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    main.push({ status: 429 });
    spare.push({ text: "spare answered" });
    const broken: FallbackCandidate = {
      label: "openrouter:some-model",
      resolve: () => Promise.reject(new Error("openrouter needs OPENROUTER_API_KEY")),
    };
    const { input, events } = testTurn(main, { retry: { maxAttempts: 1 }, fallbacks: [broken, candidate(spare, "spare", "s-model")] });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(shownText(events)).toMatch(/spare answered$/);
    expect(notices(events)).toEqual([expect.stringMatching(/^↪ Answering with spare:s-model \(fallback: custom:test-model failed: rate limited, HTTP 429\)$/)]);
    expect(stderr.join("")).toContain("fallback openrouter:some-model skipped: openrouter needs OPENROUTER_API_KEY");
  });

  it("tries each fallback in turn and, when all fail, names the last one in the error", async () => {
    main.push(down());
    backup.push({ status: 500 });
    spare.push({ status: 502 });
    const { input, events } = testTurn(main, {
      retry: { maxAttempts: 1 },
      fallbacks: [candidate(backup, "backup", "fb-model"), candidate(spare, "spare", "s-model")],
    });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(notices(events)).toEqual([
      expect.stringMatching(/^↪ Answering with backup:fb-model \(fallback: custom:test-model failed/),
      expect.stringMatching(/^↪ Answering with spare:s-model \(fallback: backup:fb-model failed: server error, HTTP 500\)$/),
    ]);
    expect(shownText(events)).toMatch(/Error: 502 from spare: the provider failed/);
  });

  it("lets the fallback go on from the text the failed model already showed", async () => {
    main.push({ text: "One two three", chunks: ["One ", "two ", "three"], cutAfterChunks: 2 });
    backup.push({ text: "three." });
    const { input, events, history } = testTurn(main, { retry: { maxAttempts: 1 }, fallbacks: [candidate(backup, "backup", "fb-model")] });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    const sent = backup.requests[0]?.body.messages as { role: string; content: string }[];
    expect(sent.slice(-2)).toEqual([
      { role: "assistant", content: "One two " },
      { role: "user", content: RESUME_NOTE },
    ]);
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "One two three." });
    expect(notices(events)[0]).toMatch(/connection failed/);
  });

  it("sends the reasoning effort only to a model that takes it", async () => {
    main.push(down());
    backup.push({ text: "ok" });
    const { input } = testTurn(main, { retry: { maxAttempts: 1 }, reasoningEffort: "high", fallbacks: [candidate(backup, "backup", "fb-model")] });
    await runTurn(input);
    expect(main.requests[0]?.body.reasoning_effort).toBe("high");
    expect(backup.requests[0]?.body).not.toHaveProperty("reasoning_effort");
  });
});

describe("fallsBack", () => {
  it("is true for provider-side failures only", () => {
    const error = (errorKind: Parameters<typeof fallsBack>[0] extends infer O ? (O extends { errorKind: infer K } ? K : never) : never, status?: number) =>
      fallsBack({ kind: "error", errorKind, message: "x", ...(status !== undefined ? { status } : {}) });
    for (const kind of ["rate_limit", "server", "timeout", "network", "auth"] as const) expect(error(kind)).toBe(true);
    for (const kind of ["bad_request", "context_overflow", "payload_too_large", "content_filter", "unknown", "aborted"] as const) expect(error(kind)).toBe(false);
    expect(error("bad_request", 402)).toBe(true);
    expect(fallsBack({ kind: "aborted" })).toBe(false);
    expect(fallsBack({ kind: "done", finishReason: "stop" })).toBe(false);
  });
});
