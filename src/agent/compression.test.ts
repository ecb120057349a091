import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/types.js";
import { ContextCompressor, planCompression, type CompressionSettings, type Summarize } from "./compression.js";
import { PRIOR_CONTEXT_OPEN, SUMMARY_END, SUMMARY_PREFIX } from "./compression-summary.js";
import { estimateMessagesTokens } from "./context.js";
import type { CompactionEvent } from "./events.js";

const SETTINGS: CompressionSettings = { enabled: true, threshold: 0.5, protectFirstN: 3, protectLastN: 20 };

function call(id: string, name = "read_file", args: Record<string, unknown> = { path: `${id}.ts` }) {
  return { id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } };
}

/** `turns` exchanges of: user ask, assistant tool call, tool result (`bulk` chars), assistant answer. */
function conversation(turns: number, bulk = 400): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `task ${i}` });
    messages.push({ role: "assistant", content: null, tool_calls: [call(`c${i}`)] });
    messages.push({ role: "tool", tool_call_id: `c${i}`, name: "read_file", content: `file ${i}: ${"x".repeat(bulk)}` });
    messages.push({ role: "assistant", content: `done ${i}` });
  }
  return messages;
}

/** Every tool result follows its assistant call in the same run, and every call has its result. */
function expectToolPairsIntact(messages: readonly ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as ChatMessage;
    if (message.role === "assistant" && message.tool_calls?.length) {
      const ids = message.tool_calls.map((c) => c.id);
      const results = messages.slice(i + 1, i + 1 + ids.length);
      expect(results.map((r) => (r.role === "tool" ? r.tool_call_id : `not a tool result: ${r.role}`))).toEqual(ids);
    }
    if (message.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j]?.role === "tool") j--;
      const owner = messages[j];
      expect(owner?.role === "assistant" && owner.tool_calls?.some((c) => c.id === message.tool_call_id), `orphan tool result ${message.tool_call_id}`).toBe(true);
    }
  }
}

function scripted(...answers: Array<string | Error>) {
  const calls: ChatMessage[][] = [];
  const summarize: Summarize = async (messages) => {
    calls.push(messages);
    const next = answers.shift() ?? "## Goal\nfallback summary";
    if (next instanceof Error) throw next;
    return next;
  };
  return { calls, summarize };
}

function compressor(summarize: Summarize, window: number, settings: Partial<CompressionSettings> = {}, extra: { onCompressed?: () => void; preservedState?: () => string | undefined; onCompaction?: (event: CompactionEvent) => void } = {}) {
  return new ContextCompressor({ settings: { ...SETTINGS, ...settings }, contextWindow: () => window, overheadTokens: () => 100, summarize, ...extra });
}

const signal = new AbortController().signal;

describe("planCompression", () => {
  it("keeps the first 3 and last 20 messages", () => {
    const messages = conversation(10);
    expect(planCompression(messages, SETTINGS)).toEqual({ headEnd: 3, tailStart: 20 });
  });

  it("extends the head over the tool results of its last call", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b"), call("c")] },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "tool", tool_call_id: "c", content: "C" },
      ...conversation(10),
    ];
    const plan = planCompression(messages, SETTINGS);
    expect(plan?.headEnd).toBe(5);
  });

  it("moves the tail start back to the assistant whose results it would cut off", () => {
    const messages = conversation(10);
    // With 21 protected, the tail would start on a tool result (index 19 of 40 is `tool`).
    messages.splice(18, 0, { role: "assistant", content: null, tool_calls: [call("p"), call("q")] }, { role: "tool", tool_call_id: "p", content: "P" }, { role: "tool", tool_call_id: "q", content: "Q" });
    const plan = planCompression(messages, { protectFirstN: 3, protectLastN: messages.length - 20 });
    expect(messages[20]?.role).toBe("tool");
    expect(plan?.tailStart).toBe(18);
    expect(messages[18]?.role).toBe("assistant");
  });

  it("answers undefined when nothing lies between head and tail", () => {
    expect(planCompression(conversation(5), SETTINGS)).toBeUndefined();
    expect(planCompression([], SETTINGS)).toBeUndefined();
  });
});

describe("ContextCompressor", () => {
  it("sends the history as is below the threshold", async () => {
    const model = scripted();
    const history = conversation(10);
    const view = await compressor(model.summarize, 1_000_000).prepareMessages(history, signal);
    expect(view).toEqual(history);
    expect(model.calls).toHaveLength(0);
  });

  it("past the threshold: head + one summary message + tail, tool pairs intact, history untouched", async () => {
    const model = scripted("## Goal\nShip it\n## Progress\nread 40 files");
    const history = conversation(40);
    const snapshot = structuredClone(history);
    const window = Math.ceil((estimateMessagesTokens(history) + 100) / 0.6); // request is ~60 % of it
    let compressions = 0;
    const context = compressor(model.summarize, window, {}, { onCompressed: () => compressions++ });

    const view = await context.prepareMessages(history, signal);

    expect(history).toEqual(snapshot);
    expect(model.calls).toHaveLength(1);
    expect(compressions).toBe(1);
    expect(view.slice(0, 3)).toEqual(history.slice(0, 3));
    expect(view.slice(-20)).toEqual(history.slice(-20));
    expect(view).toHaveLength(3 + 1 + 20);
    const summary = view[3] as ChatMessage;
    // After the head's tool result a user message would do, but the tail starts with one: assistant.
    expect(summary.role).toBe("assistant");
    expect(summary.content).toContain(SUMMARY_PREFIX);
    expect(summary.content).toContain("## Goal\nShip it");
    expect(summary.content).toContain(SUMMARY_END);
    expectToolPairsIntact(view);
    // The summarizer saw the middle (not head or tail) and was asked for Hermes' structure.
    const request = model.calls[0]?.[1]?.content as string;
    expect(request).toContain("## Goal");
    expect(request).toContain("## Files Touched");
    expect(request).toContain("## Next Steps");
    expect(request).toContain("[USER]: task 1");
    expect(request).toContain("[USER]: task 14");
    expect(request).not.toContain("[USER]: task 0");
    expect(request).not.toContain("[USER]: task 35");
  });

  it("reuses the summary until new messages pass the threshold again, then folds it into a new one", async () => {
    const model = scripted("first summary", "second summary");
    const history = conversation(40);
    const window = Math.ceil((estimateMessagesTokens(history) + 100) / 0.6);
    const context = compressor(model.summarize, window);
    const first = await context.prepareMessages(history, signal);

    history.push({ role: "user", content: "one more" });
    const second = await context.prepareMessages(history, signal);
    expect(model.calls).toHaveLength(1);
    expect(second).toEqual([...first, { role: "user", content: "one more" }]);
    expect(context.isCompacted).toBe(true);

    history.push(...conversation(60).slice(0, 240).map((m) => (m.role === "tool" ? { ...m, tool_call_id: `n${m.tool_call_id}` } : m.role === "assistant" && m.tool_calls ? { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: `n${c.id}` })) } : m)));
    const third = await context.prepareMessages(history, signal);
    expect(model.calls).toHaveLength(2);
    const request = model.calls[1]?.[1]?.content as string;
    expect(request).toContain("EARLIER SUMMARY");
    expect(request).toContain("first summary");
    expect(third.slice(0, 3)).toEqual(history.slice(0, 3));
    expect(third[3]?.content).toContain("second summary");
    expect(third.slice(-20)).toEqual(history.slice(-20));
    expectToolPairsIntact(third);
  });

  it("quotes the latest user request when it was compacted, and keeps the active task list", async () => {
    const model = scripted("summary");
    const history: ChatMessage[] = [
      { role: "user", content: "Refactor the parser, keep the public API" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "go on" },
      { role: "assistant", content: "sure" },
      { role: "user", content: "Also rename Lexer to Scanner" },
    ];
    for (let i = 0; i < 30; i++) {
      history.push({ role: "assistant", content: null, tool_calls: [call(`k${i}`)] });
      history.push({ role: "tool", tool_call_id: `k${i}`, content: "y".repeat(500) });
    }
    const context = compressor(model.summarize, 1_000, {}, { preservedState: () => "- [in_progress] 2: rename Lexer" });
    const report = await context.compressNow(history, signal);
    expect(report.compressed).toBe(true);
    const view = context.view(history);
    const summary = view[3]?.content as string;
    expect(summary).toContain("Also rename Lexer to Scanner");
    expect(summary).toContain("- [in_progress] 2: rename Lexer");
    expectToolPairsIntact(view);
  });

  it("merges the summary into the first kept message when neither role alternates", async () => {
    const model = scripted("merged summary");
    const history: ChatMessage[] = [];
    for (let i = 0; i < 30; i++) history.push({ role: "user", content: `u${i}` }, { role: "assistant", content: `a${i}` });
    // Head ends with a user message and the tail starts with an assistant message.
    const context = compressor(model.summarize, 1_000, { protectFirstN: 3, protectLastN: 21 });
    await context.compressNow(history, signal);
    const view = context.view(history);
    expect(view.slice(0, 3)).toEqual(history.slice(0, 3));
    expect(view[3]?.role).toBe("assistant");
    expect(view[3]?.content).toMatch(new RegExp(`^\\${PRIOR_CONTEXT_OPEN.slice(0, 20)}`));
    expect(view[3]?.content).toContain("merged summary");
    expect(view[3]?.content).toContain("a19");
    expect(history[39]).toEqual({ role: "assistant", content: "a19" });
    expect(view).toHaveLength(3 + 21);
  });

  it("reports A -> B messages, ~X -> ~Y tokens, and says when there is nothing to compress", async () => {
    const model = scripted("short");
    const context = compressor(model.summarize, 1_000_000);
    const history = conversation(40);
    const report = await context.compressNow(history, signal);
    expect(report.text).toMatch(/^160 -> 24 messages, ~[\d,]+ -> ~[\d,]+ tokens$/);
    expect(report.beforeTokens).toBeGreaterThan(report.afterTokens);
    const short = await compressor(model.summarize, 1_000_000).compressNow(conversation(3), signal);
    expect(short.compressed).toBe(false);
    expect(short.text).toMatch(/^Nothing to compress: 12 messages/);
  });

  it("a failed summary sends the history uncompressed and pauses; compressNow rejects and changes nothing", async () => {
    const model = scripted(new Error("HTTP 500"), new Error("HTTP 500"));
    const history = conversation(40);
    const window = Math.ceil((estimateMessagesTokens(history) + 100) / 0.6);
    const context = compressor(model.summarize, window);
    expect(await context.prepareMessages(history, signal)).toEqual(history);
    history.push({ role: "user", content: "next" });
    expect(await context.prepareMessages(history, signal)).toEqual(history);
    expect(model.calls).toHaveLength(1);
    await expect(context.compressNow(history, signal)).rejects.toThrow(/Could not compress the conversation: HTTP 500/);
    expect(context.isCompacted).toBe(false);
  });

  it("when the request cannot fit the window at all and the summary fails, the middle is dropped with a note", async () => {
    const model = scripted(new Error("quota exceeded"));
    const history = conversation(40);
    const window = Math.ceil(estimateMessagesTokens(history) / 2);
    const view = await compressor(model.summarize, window).prepareMessages(history, signal);
    expect(view).toHaveLength(24);
    expect(view[3]?.content).toContain("Summary unavailable");
    expect(view[3]?.content).toContain("quota exceeded");
    expectToolPairsIntact(view);
  });

  it("calibrates the estimate with the provider's reported prompt tokens", () => {
    const context = compressor(scripted().summarize, 100_000);
    const history = conversation(2);
    const estimated = context.estimate(history);
    context.noteUsage({ inputTokens: 5_000, outputTokens: 10, totalTokens: 5_010 }, history);
    expect(context.estimate(history)).toBe(5_000);
    history.push({ role: "user", content: "z".repeat(400) });
    expect(context.estimate(history)).toBeGreaterThan(5_100);
    expect(estimated).toBeLessThan(5_000);
    // A history cleared and regrown (`/reset`) is no longer described by that report.
    history.splice(0, history.length, ...conversation(3));
    expect(context.estimate(history)).toBeLessThan(5_000);
  });

  it("does nothing automatically when disabled, but compresses on demand", async () => {
    const model = scripted("on demand");
    const history = conversation(40);
    const context = compressor(model.summarize, 1_000, { enabled: false });
    expect(await context.prepareMessages(history, signal)).toEqual(history);
    expect(model.calls).toHaveLength(0);
    expect((await context.compressNow(history, signal)).compressed).toBe(true);
  });
});

describe("compaction events", () => {
  it("tells each compression's start and end under one id, with its trigger, counts and summary", async () => {
    const events: CompactionEvent[] = [];
    const { summarize } = scripted("## Goal\nSUMMARY-A", new Error("model down"));
    const history = conversation(10);
    const compressing = compressor(summarize, 1_000_000, { protectFirstN: 2, protectLastN: 4 }, { onCompaction: (event) => events.push(event) });
    const report = await compressing.compressNow(history, signal);
    expect(events.map((event) => [event.trigger, event.status])).toEqual([
      ["manual", "started"],
      ["manual", "completed"],
    ]);
    expect(events[0]?.compactionId).toBe(events[1]?.compactionId);
    expect(events[1]).toMatchObject({ beforeMessages: report.beforeMessages, afterMessages: report.afterMessages, text: report.text, summary: "## Goal\nSUMMARY-A" });

    history.push(...conversation(3));
    await expect(compressing.compressNow(history, signal)).rejects.toThrow(/Could not compress/);
    expect(events.slice(2)).toEqual([
      { type: "compaction", compactionId: expect.any(String), trigger: "manual", status: "started" },
      { type: "compaction", compactionId: events[2]?.compactionId, trigger: "manual", status: "failed", error: "model down" },
    ]);
    expect(events[2]?.compactionId).not.toBe(events[0]?.compactionId);
  });

  it("tells nothing when there is nothing to compress", async () => {
    const events: CompactionEvent[] = [];
    const { summarize } = scripted();
    await compressor(summarize, 1_000_000, {}, { onCompaction: (event) => events.push(event) }).compressNow(conversation(1), signal);
    expect(events).toEqual([]);
  });
});
