/**
 * A `runTurn` input aimed at a fake LLM server, for agent tests: a real OpenAI-compatible provider over
 * HTTP, an `echo` tool, events and history collected, and retry waits recorded instead of slept (still
 * cancellable), so fault tests run fast without any wall-clock assertion.
 */
import { z } from "zod";
import type { AgentEvent } from "../../src/agent/events.js";
import type { TurnInput } from "../../src/agent/loop.js";
import { createOpenAiChatProvider, type OpenAiChatProviderOptions } from "../../src/llm/openai-chat.js";
import type { ChatMessage } from "../../src/llm/types.js";
import { abortError } from "../../src/shared/abort.js";
import { newId } from "../../src/shared/ids.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/types.js";
import type { FakeLlm } from "./fake-llm.js";
import { toolContext } from "./tool-context.js";

export interface TestTurn {
  input: TurnInput;
  events: AgentEvent[];
  history: ChatMessage[];
  /** Every retry wait the loop asked for, in ms, in order. */
  waits: number[];
  /** How often each tool name was executed. */
  runs: Map<string, number>;
}

/** `echo {text}` → `echo:<text>`, counting its runs in `runs`. */
export function echoTool(runs: Map<string, number>) {
  return defineTool({
    name: "echo",
    description: "Echoes its text",
    kind: "other",
    mutating: false,
    params: z.object({ text: z.string() }),
    describe: (args) => ({ title: `echo: ${args.text}`, locations: [] }),
    execute: async (args) => {
      runs.set("echo", (runs.get("echo") ?? 0) + 1);
      return { content: `echo:${args.text}` };
    },
  });
}

export function testTurn(
  llm: FakeLlm,
  overrides: Partial<TurnInput> & { text?: string } = {},
  providerOptions: Partial<OpenAiChatProviderOptions> = {},
): TestTurn {
  const events: AgentEvent[] = [];
  const waits: number[] = [];
  const runs = new Map<string, number>();
  const history: ChatMessage[] = overrides.history ?? [];
  const recordWait = async (ms: number, signal: AbortSignal): Promise<void> => {
    waits.push(ms);
    if (signal.aborted) throw abortError();
  };
  const input: TurnInput = {
    provider: createOpenAiChatProvider({ id: "custom", baseUrl: llm.baseUrl, apiKey: "no-key-required", ...providerOptions }),
    model: "test-model",
    systemPrompt: "SYSTEM",
    tools: new ToolRegistry([echoTool(runs)]),
    history,
    user: { role: "user", content: overrides.text ?? "hi" },
    maxTurns: 90,
    toolContext: toolContext({ cwd: "/tmp" }),
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    newMessageId: newId,
    ...overrides,
    retry: { sleep: recordWait, ...overrides.retry },
  };
  return { input, events, history, waits, runs };
}

/** The visible text the turn relayed, joined. */
export function shownText(events: AgentEvent[]): string {
  return events.flatMap((event) => (event.type === "message_delta" ? [event.text] : [])).join("");
}

/** The reasoning the turn relayed, joined. */
export function shownReasoning(events: AgentEvent[]): string {
  return events.flatMap((event) => (event.type === "reasoning_delta" ? [event.text] : [])).join("");
}
