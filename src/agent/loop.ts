import type { ChatMessage, Provider, TokenUsage, ToolCall } from "../llm/types.js";
import { log } from "../shared/logger.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolContext, ToolResult } from "../tools/types.js";
import type { EmitAgentEvent, StopReason } from "./events.js";
import { callModel, type ModelCallResult } from "./model-call.js";
import { runToolCall, type ToolGate } from "./tool-runner.js";
import { addUsage } from "./usage.js";

export interface TurnInput {
  provider: Provider;
  model: string;
  /** Sent first on every call, byte for byte. */
  systemPrompt: string;
  tools: ToolRegistry;
  /** The conversation so far. The turn appends to it in place, in order. */
  history: ChatMessage[];
  user: Extract<ChatMessage, { role: "user" }>;
  /** Tool-calling iterations before one last call without tools. */
  maxTurns: number;
  maxTokens?: number;
  /** Context for every tool call of the turn; `callId` and `signal` are filled in per call. */
  toolContext: Omit<ToolContext, "signal" | "callId">;
  signal: AbortSignal;
  emit: EmitAgentEvent;
  /**
   * Called after each message lands in history (for persistence), with the tool's outcome
   * (what it reported for the editor, and whether it failed) when the message is a tool result.
   * Must not throw.
   */
  onAppend?: (message: ChatMessage, toolOutcome?: ToolOutcome) => void;
  newMessageId: () => string;
  /** Refuses tools the session's mode does not allow (plan mode). */
  toolGate?: ToolGate;
  /**
   * The messages the model is sent this call, from the full history (context compression hooks
   * in here). Default: the history as is. The history itself is never changed by it.
   */
  prepareMessages?: (history: readonly ChatMessage[], signal: AbortSignal) => Promise<ChatMessage[]>;
  /**
   * Guidance the user sent for the running turn (`/steer`), taken after each tool batch and
   * appended to the last tool result so the model sees it on its next call.
   */
  takeSteering?: () => string | undefined;
}

/** What a tool result carried besides its text, kept so a replay can show it as it was live. */
export interface ToolOutcome {
  details?: unknown;
  isError: boolean;
}

export interface TurnResult {
  stopReason: StopReason;
  usage: TokenUsage | undefined;
}

const CANCELLED_TOOL_RESULT = "Tool call cancelled by the user before it ran.";

/**
 * Runs one user turn: stream the model; run the tools it calls and call it again; stop on a
 * text-only answer. Cancellation (the signal) stops the stream at once and tools between calls;
 * text already streamed stays in history, and every tool call in history gets a result.
 * Emits `turn_end` last and resolves with the same stop reason. Never throws.
 */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const { history, signal, emit } = input;
  let usage: TokenUsage | undefined;
  const append = (message: ChatMessage, toolOutcome?: ToolOutcome): void => {
    history.push(message);
    input.onAppend?.(message, toolOutcome);
  };
  const finish = (stopReason: StopReason): TurnResult => {
    emit({ type: "turn_end", stopReason, ...(usage ? { usage } : {}) });
    return { stopReason, usage };
  };

  append(input.user);

  for (let iteration = 0; ; iteration++) {
    if (signal.aborted) return finish("cancelled");
    const withTools = iteration < input.maxTurns;
    const messageId = input.newMessageId();
    const call = await callModel(
      input.provider,
      {
        model: input.model,
        messages: [{ role: "system", content: input.systemPrompt }, ...(input.prepareMessages ? await input.prepareMessages(history, signal) : history)],
        ...(withTools && input.tools.names().length ? { tools: input.tools.schemas() } : {}),
        ...(input.maxTokens ? { maxTokens: input.maxTokens } : {}),
      },
      messageId,
      signal,
      emit,
    );
    usage = addUsage(usage, call.usage);
    if (call.usage) emit({ type: "usage", usage: call.usage });
    emit({ type: "message_end", messageId });

    const outcome = call.outcome;
    if (outcome.kind !== "done") {
      if (call.text || call.reasoning) append(assistantMessage(call, [], outcome.kind === "aborted" ? "cancelled" : "error"));
      if (outcome.kind === "aborted") return finish("cancelled");
      log.warn(`model call failed (${outcome.errorKind}): ${outcome.message}`);
      const errorId = input.newMessageId();
      emit({ type: "message_delta", messageId: errorId, text: `${call.text ? "\n\n" : ""}Error: ${outcome.message}` });
      emit({ type: "message_end", messageId: errorId });
      return finish("end_turn");
    }

    const toolCalls = withTools ? call.toolCalls : [];
    append(assistantMessage(call, toolCalls, outcome.finishReason));
    if (toolCalls.length === 0) {
      if (!withTools) return finish("max_turn_requests");
      if (outcome.finishReason === "length") return finish("max_tokens");
      if (outcome.finishReason === "content_filter") return finish("refusal");
      return finish("end_turn");
    }

    await runToolCalls(toolCalls, input, append);
    if (signal.aborted) return finish("cancelled");
    steer(history, input.takeSteering?.());
  }
}

function assistantMessage(call: ModelCallResult, toolCalls: ToolCall[], finishReason: string): ChatMessage {
  return {
    role: "assistant",
    content: call.text || null,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(call.reasoning ? { reasoning: call.reasoning } : {}),
    finish_reason: finishReason,
  };
}

/**
 * Runs a message's tool calls. Consecutive read-only calls run concurrently; a mutating (or
 * unknown) call runs alone, in order. Results are appended in call order. After a cancel the
 * remaining calls get a "cancelled" result without running.
 */
async function runToolCalls(
  calls: ToolCall[],
  input: TurnInput,
  append: (message: ChatMessage, toolOutcome?: ToolOutcome) => void,
): Promise<void> {
  const ctx = { ...input.toolContext, signal: input.signal };
  const run = (call: ToolCall): Promise<ToolResult> =>
    input.signal.aborted
      ? Promise.resolve({ content: CANCELLED_TOOL_RESULT, isError: true })
      : runToolCall(call, input.tools, ctx, input.emit, input.toolGate);
  for (const batch of batches(calls, input.tools)) {
    const results = await Promise.all(batch.map(run));
    batch.forEach((call, index) => {
      const result = results[index] ?? { content: CANCELLED_TOOL_RESULT, isError: true };
      const outcome: ToolOutcome = { isError: result.isError === true, ...(result.details !== undefined ? { details: result.details } : {}) };
      append({ role: "tool", tool_call_id: call.id, name: call.function.name, content: result.content }, outcome);
    });
  }
}

/** Splits calls into runs of read-only calls and single mutating calls, keeping order. */
function batches(calls: ToolCall[], tools: ToolRegistry): ToolCall[][] {
  const result: ToolCall[][] = [];
  let readOnly: ToolCall[] = [];
  for (const call of calls) {
    const tool = tools.get(call.function.name);
    if (tool && !tool.mutating) {
      readOnly.push(call);
      continue;
    }
    if (readOnly.length) result.push(readOnly);
    readOnly = [];
    result.push([call]);
  }
  if (readOnly.length) result.push(readOnly);
  return result;
}

/** Appends steering text to the newest tool result (role alternation stays valid). */
function steer(history: ChatMessage[], guidance: string | undefined): void {
  if (!guidance) return;
  const last = history.at(-1);
  if (last?.role !== "tool") return;
  last.content += `\n\n[User guidance for the rest of this turn: ${guidance}]`;
}
