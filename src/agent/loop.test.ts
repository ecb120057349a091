import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { toolContext } from "../../test/support/tool-context.js";
import { createOpenAiChatProvider } from "../llm/openai-chat.js";
import type { ChatMessage } from "../llm/types.js";
import { registerSecret } from "../config/redact.js";
import { newId } from "../shared/ids.js";
import { ToolRegistry } from "../tools/registry.js";
import { todoTool } from "../tools/todo/todo.js";
import { defineTool } from "../tools/types.js";
import type { AgentEvent } from "./events.js";
import { runTurn, type TurnInput } from "./loop.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text",
  kind: "other",
  mutating: false,
  params: z.object({ text: z.string() }),
  describe: (args) => ({ title: `echo: ${args.text}`, locations: [] }),
  execute: async (args) => ({ content: `echo:${args.text}` }),
});

/** Waits until the turn is cancelled, then reports it; `started` resolves when it begins. */
function blockingTool(started: () => void) {
  return defineTool({
    name: "block",
    description: "Blocks until cancelled",
    kind: "execute",
    mutating: true,
    params: z.object({}),
    describe: () => ({ title: "block", locations: [] }),
    execute: (_args, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener("abort", () => resolve({ content: "interrupted", isError: true }), { once: true });
        started();
      }),
  });
}

function turn(overrides: Partial<TurnInput> & { text?: string } = {}): { input: TurnInput; events: AgentEvent[]; history: ChatMessage[] } {
  const events: AgentEvent[] = [];
  const history: ChatMessage[] = overrides.history ?? [];
  const input: TurnInput = {
    provider: createOpenAiChatProvider({ id: "custom", baseUrl: llm.baseUrl, apiKey: "no-key-required" }),
    model: "test-model",
    systemPrompt: "SYSTEM",
    tools: new ToolRegistry([echoTool]),
    history,
    user: { role: "user", content: overrides.text ?? "hi" },
    maxTurns: 90,
    toolContext: toolContext({ cwd: "/tmp" }),
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    newMessageId: newId,
    ...overrides,
  };
  return { input, events, history };
}

describe("runTurn", () => {
  it("streams a text answer and ends the turn", async () => {
    llm.push({ text: "Hello there, friend", chunks: ["Hello", " there,", " friend"], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } });
    const { input, events, history } = turn();
    const result = await runTurn(input);

    expect(result.stopReason).toBe("end_turn");
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 4, totalTokens: 14 });
    const deltas = events.filter((event) => event.type === "message_delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.text).join("")).toBe("Hello there, friend");
    expect(new Set(deltas.map((event) => event.messageId)).size).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: "turn_end", stopReason: "end_turn" });
    expect(history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello there, friend", finish_reason: "stop" },
    ]);
    const sent = llm.requests[0]?.body;
    expect(sent.messages[0]).toEqual({ role: "system", content: "SYSTEM" });
    expect(sent.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["echo"]);
  });

  it("runs a tool call, sends the result back, and answers with a new message id", async () => {
    llm.push({ tool_calls: [{ id: "call_1", name: "echo", arguments: { text: "ping" } }] }, { text: "Got pong" });
    const { input, events, history } = turn();
    const result = await runTurn(input);

    expect(result.stopReason).toBe("end_turn");
    const start = events.find((event) => event.type === "tool_start");
    const end = events.find((event) => event.type === "tool_end");
    expect(start).toMatchObject({ callId: "call_1", name: "echo", args: { text: "ping" }, title: "echo: ping" });
    expect(end).toMatchObject({ callId: "call_1", content: "echo:ping", isError: false });
    expect(history.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(llm.requests[1]?.body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: "echo:ping" });
    const ids = events.filter((event) => event.type === "message_end").map((event) => event.messageId);
    expect(new Set(ids).size).toBe(2);
  });

  it("hands each tool result's outcome to onAppend as stored, typed by its tool", async () => {
    llm.push(
      {
        tool_calls: [
          { id: "d1", name: "todo", arguments: { todos: [{ id: "1", content: "ship" }] } },
          { id: "e1", name: "echo", arguments: { text: "x" } },
        ],
      },
      { text: "ok" },
    );
    const outcomes: unknown[] = [];
    const { input } = turn({ tools: new ToolRegistry([echoTool, todoTool]), onAppend: (_message, outcome) => outcome && outcomes.push(outcome) });
    await runTurn(input);
    expect(outcomes).toEqual([
      {
        tool: "todo",
        isError: false,
        details: { todos: [{ id: "1", content: "ship", status: "pending" }], summary: { total: 1, pending: 1, in_progress: 0, completed: 0, cancelled: 0 } },
      },
      { tool: null, isError: false },
    ]);
  });

  it("pairs parallel calls of the same tool by id", async () => {
    llm.push(
      {
        tool_calls: [
          { id: "call_a", name: "echo", arguments: { text: "a" } },
          { id: "call_b", name: "echo", arguments: { text: "b" } },
        ],
      },
      { text: "done" },
    );
    const { input, events } = turn();
    await runTurn(input);
    const ends = events.filter((event) => event.type === "tool_end");
    expect(ends.map((event) => [event.callId, event.content])).toEqual([
      ["call_a", "echo:a"],
      ["call_b", "echo:b"],
    ]);
  });

  it("reports unknown tools and bad arguments to the model as errors and keeps going", async () => {
    llm.push(
      {
        tool_calls: [
          { id: "call_x", name: "nope", arguments: {} },
          { id: "call_y", name: "echo", arguments: "{not json" },
        ],
      },
      { text: "sorry" },
    );
    const { input, events, history } = turn();
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    const ends = events.filter((event) => event.type === "tool_end");
    expect(ends[0]).toMatchObject({ callId: "call_x", isError: true });
    expect(ends[0]?.content).toContain("Available tools: echo");
    expect(ends[1]).toMatchObject({ callId: "call_y", isError: true });
    expect(ends[1]?.content).toContain("Invalid JSON");
    expect(history.filter((message) => message.role === "tool")).toHaveLength(2);
  });

  it("stops after max_turns tool rounds with one final call without tools", async () => {
    llm.push(
      { tool_calls: [{ id: "c1", name: "echo", arguments: { text: "1" } }] },
      { tool_calls: [{ id: "c2", name: "echo", arguments: { text: "2" } }] },
      { text: "final answer" },
    );
    const { input } = turn({ maxTurns: 2 });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("max_turn_requests");
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[1]?.body.tools).toBeDefined();
    expect(llm.requests[2]?.body.tools).toBeUndefined();
  });

  it("cancels mid-stream, keeps the streamed text, and reports cancelled once", async () => {
    llm.push({ text: "", chunks: ["first ", "second ", "third ", "fourth"], delayMs: 60_000 });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const { input, history } = turn({
      signal: controller.signal,
      emit: (event) => {
        events.push(event);
        if (event.type === "message_delta") controller.abort();
      },
    });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("cancelled");
    expect(events.filter((event) => event.type === "turn_end")).toHaveLength(1);
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "first " });
  });

  it("cancels during a tool and gives every tool call a result", async () => {
    const controller = new AbortController();
    const tool = blockingTool(() => controller.abort());
    llm.push({
      tool_calls: [
        { id: "b1", name: "block", arguments: {} },
        { id: "b2", name: "block", arguments: {} },
      ],
    });
    const { input, events, history } = turn({ signal: controller.signal, tools: new ToolRegistry([tool]) });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("cancelled");
    expect(events.filter((event) => event.type === "tool_start").map((event) => event.callId)).toEqual(["b1"]);
    const results = history.filter((message) => message.role === "tool");
    expect(results.map((message) => message.tool_call_id)).toEqual(["b1", "b2"]);
    expect(llm.requests).toHaveLength(1);
  });

  it("turns a provider failure into a visible error and ends the turn", async () => {
    llm.push({ status: 400, body: { error: { message: "upstream exploded" } } });
    const { input, events } = turn();
    const result = await runTurn(input);
    expect(result.stopReason).toBe("end_turn");
    const text = events.filter((event) => event.type === "message_delta").map((event) => event.text).join("");
    expect(text).toContain("upstream exploded");
    expect(llm.requests).toHaveLength(1);
  });

  it("relays reasoning separately from the answer", async () => {
    llm.push({ reasoning: "thinking hard", text: "42" });
    const { input, events, history } = turn();
    await runTurn(input);
    expect(events.filter((event) => event.type === "reasoning_delta").map((event) => event.text).join("")).toBe("thinking hard");
    expect(events.filter((event) => event.type === "message_delta").map((event) => event.text).join("")).toBe("42");
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "42", reasoning: "thinking hard" });
  });

  it("runs read-only calls of one message concurrently and mutating ones alone, results in call order", async () => {
    const log: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const secondStarted = new Promise<void>((resolve) => (releaseFirst = resolve));
    const reader = defineTool({
      name: "peek",
      description: "read-only",
      kind: "read",
      mutating: false,
      params: z.object({ n: z.number() }),
      describe: (args) => ({ title: `peek ${args.n}`, locations: [] }),
      execute: async (args) => {
        log.push(`start ${args.n}`);
        // The first call can only finish once the second has started: proof they overlap.
        if (args.n === 1) await secondStarted;
        if (args.n === 2) releaseFirst();
        log.push(`end ${args.n}`);
        return { content: `peeked ${args.n}` };
      },
    });
    const writer = defineTool({
      name: "poke",
      description: "mutating",
      kind: "edit",
      mutating: true,
      params: z.object({ n: z.number() }),
      describe: (args) => ({ title: `poke ${args.n}`, locations: [] }),
      execute: async (args) => {
        log.push(`start w${args.n}`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`end w${args.n}`);
        return { content: `poked ${args.n}` };
      },
    });
    llm.push(
      {
        tool_calls: [
          { id: "r1", name: "peek", arguments: { n: 1 } },
          { id: "r2", name: "peek", arguments: { n: 2 } },
          { id: "w1", name: "poke", arguments: { n: 1 } },
          { id: "w2", name: "poke", arguments: { n: 2 } },
        ],
      },
      { text: "ok" },
    );
    const { input, history } = turn({ tools: new ToolRegistry([reader, writer]) });
    await runTurn(input);
    expect(log.slice(0, 4).sort()).toEqual(["end 1", "end 2", "start 1", "start 2"]);
    expect(log.slice(4)).toEqual(["start w1", "end w1", "start w2", "end w2"]);
    const results = history.filter((message) => message.role === "tool");
    expect(results.map((message) => [message.tool_call_id, message.content])).toEqual([
      ["r1", "peeked 1"],
      ["r2", "peeked 2"],
      ["w1", "poked 1"],
      ["w2", "poked 2"],
    ]);
  });

  it("lets a gate refuse a tool without running it", async () => {
    let ran = false;
    const writer = defineTool({
      name: "poke",
      description: "mutating",
      kind: "edit",
      mutating: true,
      params: z.object({}),
      describe: () => ({ title: "poke", locations: [] }),
      execute: async () => {
        ran = true;
        return { content: "poked" };
      },
    });
    llm.push({ tool_calls: [{ id: "p1", name: "poke", arguments: {} }] }, { text: "Here is my plan" });
    const { input, events } = turn({ tools: new ToolRegistry([writer]), toolGate: (tool) => (tool.mutating ? "Blocked in Plan mode" : undefined) });
    await runTurn(input);
    expect(ran).toBe(false);
    expect(events.find((event) => event.type === "tool_end")).toMatchObject({ callId: "p1", isError: true, content: "Blocked in Plan mode" });
  });

  it("masks secrets the agent holds in tool output, for the model and the editor", async () => {
    registerSecret("sk-or-v1-0123456789abcdefDEADBEEF");
    const leaky = defineTool({
      name: "leak",
      description: "prints the environment",
      kind: "execute",
      mutating: true,
      params: z.object({}),
      describe: () => ({ title: "leak", locations: [] }),
      execute: async () => ({ content: "KEY=sk-or-v1-0123456789abcdefDEADBEEF", details: { output: "sk-or-v1-0123456789abcdefDEADBEEF", files: [{ path: "/w/.env", oldText: null, newText: "KEY=sk-or-v1-0123456789abcdefDEADBEEF" }] } }),
    });
    llm.push({ tool_calls: [{ id: "l1", name: "leak", arguments: {} }] }, { text: "ok" });
    const { input, events, history } = turn({ tools: new ToolRegistry([leaky]) });
    await runTurn(input);
    const end = events.find((event) => event.type === "tool_end");
    expect(JSON.stringify(end)).not.toContain("DEADBEEF");
    expect(JSON.stringify(history)).not.toContain("DEADBEEF");
    expect(JSON.stringify(llm.requests)).not.toContain("DEADBEEF");
  });
});
