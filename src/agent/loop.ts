import type { ChatMessage, ModelRequest, Provider, TokenUsage, ToolCall } from "../llm/types.js";
import { log } from "../shared/logger.js";
import { prepareToolCall } from "../tools/prepared-call.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { StoredToolOutcome, TypedToolOutcome } from "../tools/typed-call.js";
import type { ToolContext } from "../tools/types.js";
import { failureText } from "./error-text.js";
import type { EmitAgentEvent, StopReason } from "./events.js";
import { iterationCeiling, refundsIteration } from "./iteration-budget.js";
import { DEFAULT_MAX_RESPONSE_CHARS } from "./model-call.js";
import { TurnModels, type FallbackCandidate } from "./fallback.js";
import type { ModelStepResult } from "./model-step.js";
import { runRecoveringStep, type ContextOverflowHandler, type TextOnlyMemory } from "./call-recovery.js";
import { redirectMessages, type TurnRedirect } from "./redirect.js";
import { DEFAULT_TOOL_RESULT_LIMITS, ResultBudget, type SpillWriter, type ToolResultLimits } from "./result-budget.js";
import { spillToolResult } from "../tools/result-spill.js";
import { OutputBudget } from "./output-budget.js";
import { retryPolicy, type RetryPolicy } from "./retry.js";
import { sendableHistory } from "./sendable-history.js";
import { runToolCalls, toolOutcome, truncatedCalls, type ToolGate } from "./tool-runner.js";
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
  /**
   * Tool-calling iterations before one last call without tools. A round whose calls are all
   * `execute_code` does not count (Hermes' refund), within `iterationCeiling(maxTurns)` calls in all.
   */
  maxTurns: number;
  /** Output cap per model call (`model.max_tokens`); raised within the turn after a `length` cut. */
  maxTokens?: number;
  /**
   * Size cap of one model response in characters of text, reasoning and tool arguments
   * (`model.max_response_chars`). Default: DEFAULT_MAX_RESPONSE_CHARS (1,000,000).
   */
  maxResponseChars?: number;
  /** Sent with every model call when set (models that take a reasoning effort). */
  reasoningEffort?: ModelRequest["reasoningEffort"];
  /** Provider id as the user knows it, named in failure messages. Default: `provider.id`. */
  providerLabel?: string;
  /** Where the API key comes from (`OPENROUTER_API_KEY`), named when the provider rejects it. */
  keyHint?: string;
  /** Retry settings; `maxAttempts` comes from `agent.api_max_retries`. Defaults: DEFAULT_RETRY_POLICY. */
  retry?: Partial<RetryPolicy>;
  /**
   * Models tried in order when a call still fails after its retries on a provider-side error
   * (`fallback_providers`; see `TurnModels` in fallback.ts), each resolved only when reached. The
   * turn's later calls stay on a fallback that answered; the next turn starts on `provider` again.
   */
  fallbacks?: readonly FallbackCandidate[];
  /** Context for every tool call of the turn; `callId` and `signal` are filled in per call. */
  toolContext: Omit<ToolContext, "signal" | "callId">;
  signal: AbortSignal;
  emit: EmitAgentEvent;
  /**
   * Called after each message lands in history (for persistence), with the tool's outcome
   * (what it reported for the editor, typed by tool, and whether it failed) when the message is a
   * tool result. Must not throw.
   */
  onAppend?: (message: ChatMessage, toolOutcome?: TypedToolOutcome) => void;
  newMessageId: () => string;
  /**
   * Called with each piece of answer text as it streams (`first`: the first piece of this model
   * call), for storing what the user has seen before it lands. Must not throw.
   */
  onStreamText?: (piece: string, first: boolean) => void;
  /** Refuses tools the session's mode does not allow (plan mode). */
  toolGate?: ToolGate;
  /**
   * The messages the model is sent this call, from the full history (context compression hooks
   * in here). Default: the history as is. The history itself is never changed by it.
   */
  prepareMessages?: (history: readonly ChatMessage[], signal: AbortSignal) => Promise<ChatMessage[]>;
  /**
   * Called when a model call was refused as too long (`context_overflow`, HTTP 413) and lowering
   * the output cap cannot help: compresses the conversation (forced) and answers the messages to
   * send instead; the call is then sent again, up to `MAX_OVERFLOW_COMPRESSIONS` (3) times (see
   * call-recovery.ts). Without it such a failure ends the turn at once.
   */
  onContextOverflow?: ContextOverflowHandler;
  /** Called with the model's window when a provider error stated it (to remember it). Must not throw. */
  onContextLimit?: (tokens: number) => void;
  /**
   * Whether the model is known to refuse images, kept by the caller across turns: while true, image
   * parts are sent as notes; `mark` is called when a call was refused for its images. Default: a
   * refusal is remembered for the rest of this turn only.
   */
  textOnly?: TextOnlyMemory;
  /**
   * Tool results larger than this are spilled to a file and sent as head + tail + path (see
   * result-budget.ts). Default: DEFAULT_TOOL_RESULT_LIMITS (100,000 per result, 200,000 per batch).
   */
  toolResultLimits?: ToolResultLimits;
  /** Where spilled results are written. Default: the session's spill folder in temp (`spillToolResult`). */
  spillWriter?: SpillWriter;
  /**
   * Guidance the user sent for the running turn (`/steer`), taken after each tool batch and
   * appended to the last tool result so the model sees it on its next call.
   */
  takeSteering?: () => string | undefined;
  /**
   * Corrections the user sends while the turn runs (Hermes' redirect, see redirect.ts): one that
   * arrives during a model call stops that call (what it showed stays in history, its tool calls
   * are not run); before each call the corrections waiting join history as the user's message and
   * the call is made with them. Neither the stopped call nor the correction counts as a tool round.
   */
  redirect?: TurnRedirect;
}

/**
 * What a tool result carried besides its text, as stored and read back (details unchecked until
 * a replay decodes them, see `decodeToolOutcome`); the loop hands over a `TypedToolOutcome`.
 */
export type ToolOutcome = StoredToolOutcome;

export interface TurnResult {
  stopReason: StopReason;
  usage: TokenUsage | undefined;
}

/** Sent once per turn when the model answers tool results with nothing (Hermes' wording). */
export const EMPTY_ANSWER_NUDGE =
  "You just executed tool calls but returned an empty response. Please process the tool results above and continue with the task.";

/**
 * Runs one user turn: stream the model; run the tools it calls and call it again; stop on a
 * text-only answer. Never throws; emits `turn_end` last and resolves with the same stop reason.
 *
 * - Each model call is retried on retryable failures and resumed or continued after a broken or
 *   truncated stream (`runModelStep`); a final failure ends the turn (`end_turn`, or `refusal` for a
 *   content filter) with a one-line explanation as its own message, never a stack trace.
 * - An answer still cut by the output cap after the continuations ends the turn with `max_tokens`. A
 *   tool call cut off by it is never run; its id gets an error result and the next call a higher cap.
 * - An empty answer right after tool results gets one nudge per turn (the nudge is not kept in history).
 * - After `maxTurns` tool rounds, one last call without tools; stop reason `max_turn_requests`. A round
 *   whose calls are all `execute_code` is refunded (not counted), but after `iterationCeiling(maxTurns)`
 *   calls with tools the last call comes whatever was refunded.
 * - A response that passes `maxResponseChars` is stopped (its HTTP stream closed) and ends the turn with
 *   `max_tokens`: what arrived is stored with a note saying it was cut off, the user is told, no tool runs.
 * - Tool-call arguments that are not a JSON object are stored as the model sent them, but sent back to
 *   the provider as `{}` (`sendableHistory`); the call's error result says what was wrong.
 * - A call refused as too long, or for its images, is sent again in a form that fits (a lower output cap,
 *   the conversation compressed through `onContextOverflow`, images as notes; see call-recovery.ts); when
 *   that cannot help, the failure says so and suggests /compress or a new session.
 * - Tool results pass the result budget before they land in history (see result-budget.ts): the editor
 *   is shown the whole result; the model may get a head, a tail and a file path instead.
 * - A correction (`redirect`) stops the model call in flight, or discards a response it crossed; what
 *   that call showed stays in history, the correction follows as the user's message (redirect.ts), and
 *   the loop calls the model again. During tools the caller hands corrections over as steering.
 * - Cancellation (the signal) stops the stream at once, a retry wait at once, and tools between calls;
 *   text already streamed stays in history, and every tool call in history gets a result.
 */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const { history, signal, emit } = input;
  const policy = retryPolicy(input.retry);
  const budget = new OutputBudget(input.maxTokens);
  const label = input.providerLabel ?? input.provider.id;
  const main = { provider: input.provider, model: input.model, providerLabel: label, label: `${label}:${input.model}`, reasoningEffort: true };
  const models = new TurnModels({ ...main, ...(input.keyHint ? { keyHint: input.keyHint } : {}) }, input.fallbacks, input.newMessageId);
  let usage: TokenUsage | undefined;
  let nudged = false;
  let turnTextOnly = false;
  const textOnly: TextOnlyMemory = input.textOnly ?? { known: () => turnTextOnly, mark: () => void (turnTextOnly = true) };
  const spill: SpillWriter = input.spillWriter ?? ((callId, name, content) => spillToolResult(input.toolContext.state, callId, name, content));
  /** Messages sent with the next call only (the empty-answer nudge); never part of history. */
  let tail: ChatMessage[] = [];
  const append = (message: ChatMessage, outcome?: TypedToolOutcome): void => {
    history.push(message);
    input.onAppend?.(message, outcome);
  };
  const finish = (stopReason: StopReason): TurnResult => {
    emit({ type: "turn_end", stopReason, ...(usage ? { usage } : {}) });
    return { stopReason, usage };
  };
  const notice = (text: string): void => {
    const id = input.newMessageId();
    emit({ type: "message_delta", messageId: id, text });
    emit({ type: "message_end", messageId: id });
  };

  append(input.user);

  /** Tool rounds given back because they only called execute_code (see `refundsIteration`). */
  let refunded = 0;
  const ceiling = iterationCeiling(input.maxTurns);
  for (let iteration = 0; ; iteration++) {
    if (signal.aborted) return finish("cancelled");
    const withTools = iteration - refunded < input.maxTurns && iteration < ceiling;
    const messageId = input.newMessageId();
    const waiting = input.redirect?.take();
    if (waiting) for (const message of redirectMessages(history, "", waiting)) append(message);
    const prepared = input.prepareMessages ? await input.prepareMessages(history, signal) : history;
    const callSignal = input.redirect ? AbortSignal.any([signal, input.redirect.watch()]) : signal;
    let first = true;
    const onStreamText = input.onStreamText;
    const stepEmit: EmitAgentEvent = onStreamText
      ? (event) => {
          emit(event);
          if (event.type !== "message_delta" || event.messageId !== messageId) return;
          onStreamText(event.text, first);
          first = false;
        }
      : emit;
    const callTail = tail;
    const step = await runRecoveringStep(
      {
        provider: input.provider,
        history,
        messages: prepared,
        model: input.model,
        request: (messages) => ({
          model: input.model,
          messages: [{ role: "system", content: input.systemPrompt }, ...sendableHistory(messages), ...callTail],
          ...(withTools && input.tools.names().length ? { tools: input.tools.schemas() } : {}),
          ...(input.reasoningEffort ? { reasoningEffort: input.reasoningEffort } : {}),
        }),
        onContextOverflow: input.onContextOverflow,
        onContextLimit: input.onContextLimit,
        textOnly,
        messageId,
        signal: callSignal,
        emit: stepEmit,
        policy,
        budget,
        ...(input.maxResponseChars !== undefined ? { maxResponseChars: input.maxResponseChars } : {}),
      },
      (stepInput) => models.step(stepInput),
    );
    tail = [];
    usage = addUsage(usage, step.usage);
    emit({ type: "message_end", messageId });

    // A correction that came during the call (or crossed its end): its response is stale; what it
    // showed stays, and the next call is made with the correction.
    const correction = signal.aborted ? undefined : input.redirect?.take();
    if (correction) {
      for (const message of redirectMessages(history, step.text, correction)) append(message);
      refunded++;
      continue;
    }
    const outcome = step.outcome;
    if (outcome.kind !== "done") {
      if (step.text || step.reasoning) append(assistantMessage(step, [], outcome.kind === "aborted" ? "cancelled" : "error"));
      if (outcome.kind === "aborted") return finish("cancelled");
      log.warn(`model call failed (${outcome.errorKind}): ${outcome.message}`);
      const by = step.answeredBy;
      const text = failureText(outcome, {
        providerLabel: by.providerLabel,
        providerId: by.provider.id,
        model: by.model,
        attempts: step.attempts,
        compressions: step.compressions,
        ...(by.keyHint ? { keyHint: by.keyHint } : {}),
      });
      notice(`${step.text ? "\n\n" : ""}Error: ${text}`);
      return finish(outcome.errorKind === "content_filter" ? "refusal" : "end_turn");
    }

    if (step.capped) {
      const limit = input.maxResponseChars ?? DEFAULT_MAX_RESPONSE_CHARS;
      log.warn(`model response passed ${limit} characters; stopped`);
      append(assistantMessage({ ...step, text: `${step.text}${step.text ? "\n\n" : ""}${cappedModelNote(limit)}` }, [], "length"));
      notice(`\n\n${cappedUserNote(limit)}`);
      return finish("max_tokens");
    }

    const finishReason = outcome.finishReason;
    const toolCalls = withTools ? step.toolCalls : [];
    if (toolCalls.length === 0) {
      if (step.text.trim() === "" && withTools && !nudged && history.at(-1)?.role === "tool" && (finishReason === "stop" || finishReason === "unknown")) {
        nudged = true;
        log.info("empty answer after tool results; nudging the model once");
        tail = [
          { role: "assistant", content: "(empty)" },
          { role: "user", content: EMPTY_ANSWER_NUDGE },
        ];
        continue;
      }
      append(assistantMessage(step, [], finishReason));
      if (!withTools) return finish("max_turn_requests");
      if (finishReason === "content_filter") return finish("refusal");
      if (finishReason !== "length") return finish("end_turn");
      if (step.text.trim() === "" && step.reasoning) {
        notice("The model spent its whole output budget on reasoning and gave no answer; raise model.max_tokens in config.yaml or lower agent.reasoning_effort.");
      }
      return finish("max_tokens");
    }

    // Each call is parsed, validated and described once, here; everything after uses that value.
    const calls = toolCalls.map((call) => prepareToolCall(call, input.tools, { cwd: input.toolContext.cwd }));
    const truncated = finishReason === "length" ? truncatedCalls(calls) : new Set<string>();
    const recovered = truncated.size === 0 || budget.recover(step.usage?.outputTokens);
    append(assistantMessage(step, toolCalls, finishReason));
    const lastCall = calls.at(-1);
    const resultBudget = new ResultBudget(input.toolResultLimits ?? DEFAULT_TOOL_RESULT_LIMITS, spill);
    await runToolCalls(
      calls,
      {
        tools: input.tools,
        context: { ...input.toolContext, signal },
        emit,
        ...(input.toolGate ? { gate: input.toolGate } : {}),
        truncated,
        fitContents: (group) => resultBudget.fit(group.map(({ prepared, result }) => ({ callId: prepared.callId, name: prepared.name, content: result.content }))),
      },
      (call, result) => {
        // Steering joins the batch's last result before it is stored, so a reload keeps it too.
        const last = call === lastCall && !signal.aborted;
        const content = last ? withSteering(result.content, input.takeSteering?.()) : result.content;
        append({ role: "tool", tool_call_id: call.callId, name: call.name, content }, toolOutcome(call, result));
      },
    );
    if (signal.aborted) return finish("cancelled");
    if (!recovered) return finish("max_tokens");
    if (refundsIteration(toolCalls)) refunded++;
  }
}

/** Stored after a response stopped by the size cap, so the model knows on its next call. */
export function cappedModelNote(limit: number): string {
  return `[System: this response was cut off after ${limit.toLocaleString("en-US")} characters (the response size limit); it is incomplete and no tool call of it was run.]`;
}

function cappedUserNote(limit: number): string {
  return `The model's response passed ${limit.toLocaleString("en-US")} characters and was stopped. If answers that long are intended, raise model.max_response_chars in config.yaml.`;
}

function assistantMessage(step: ModelStepResult, toolCalls: ToolCall[], finishReason: string): ChatMessage {
  return {
    role: "assistant",
    content: step.text || null,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(step.reasoning ? { reasoning: step.reasoning } : {}),
    ...(step.reasoningDetails ? { reasoning_details: step.reasoningDetails } : {}),
    ...(step.reasoningItems ? { codex_reasoning_items: step.reasoningItems } : {}),
    finish_reason: finishReason,
  };
}

/** A tool result with the user's steering appended (role alternation stays valid). */
function withSteering(content: string, guidance: string | undefined): string {
  return guidance ? `${content}\n\n[User guidance for the rest of this turn: ${guidance}]` : content;
}
