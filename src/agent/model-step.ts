/**
 * One assistant message, however many HTTP calls it takes: retries with backoff after retryable failures,
 * resumption after a stream that broke mid-answer, and continuation of an answer cut off by the output cap.
 *
 * Text already shown is never shown twice. A failed attempt that showed no visible text is simply
 * retried with the same request. One that did (a cut connection or a stalled stream mid-answer) is
 * resumed instead: the retry carries the partial answer as an assistant message plus a note asking the
 * model to continue exactly where it stopped, and only the continuation is relayed, under the same message
 * id; the stored answer is the partial text followed by the continuation. A `length` cut of visible text
 * without tool calls is continued the same way, with a raised output cap. The partial answer and the
 * notes live only in the requests, never in history. (Reasoning shown by a failed attempt that had no
 * visible text may be shown again by the retry.)
 */
import type { ChatMessage, ModelRequest, Provider, TokenUsage } from "../llm/types.js";
import { log } from "../shared/logger.js";
import type { EmitAgentEvent } from "./events.js";
import { callModel, type ModelCallOutcome, type ModelCallResult } from "./model-call.js";
import type { OutputBudget } from "./output-budget.js";
import { backoffDelayMs, isRetryable, type RetryPolicy } from "./retry.js";
import { addUsage } from "./usage.js";

/** Sent after an answer cut off by the output cap, to get the rest of it. */
export const LENGTH_CONTINUATION_NOTE =
  "[System: Your previous response was truncated by the output length limit. Continue exactly where you left off, without repeating anything you already wrote.]";
/** Sent after an answer whose stream broke, to get the rest of it. */
export const RESUME_NOTE =
  "[System: Your previous response was cut off by a connection problem. Continue exactly where you left off, without repeating anything you already wrote.]";

export interface ModelStepInput {
  provider: Provider;
  /** The request without the output cap (that comes from `budget`). */
  request: Omit<ModelRequest, "maxTokens">;
  messageId: string;
  signal: AbortSignal;
  emit: EmitAgentEvent;
  policy: RetryPolicy;
  budget: OutputBudget;
}

export interface ModelStepResult extends ModelCallResult {
  /** Attempts made for the last HTTP call of the step (1 when it succeeded first time). */
  attempts: number;
}

/**
 * Produces one assistant message; see the module doc. Emits `usage` per call that reported it. On a
 * final failure the outcome is the last error, with every piece of text shown so far kept in `text`.
 * Tool calls come only from the last, complete call. Never throws.
 */
export async function runModelStep(input: ModelStepInput): Promise<ModelStepResult> {
  const { policy, budget, signal } = input;
  let text = "";
  let reasoning = "";
  let usage: TokenUsage | undefined;
  let tail: ChatMessage[] = [];
  let attempts = 0;
  const result = (call: ModelCallResult, outcome: ModelCallOutcome): ModelStepResult => ({
    text,
    reasoning,
    toolCalls: outcome.kind === "done" ? call.toolCalls : [],
    usage,
    outcome,
    attempts,
  });

  for (;;) {
    attempts += 1;
    const maxTokens = budget.maxTokens;
    const request: ModelRequest = {
      ...input.request,
      messages: [...input.request.messages, ...tail],
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    };
    const call = await callModel(input.provider, request, input.messageId, signal, input.emit);
    text += call.text;
    reasoning += call.reasoning;
    usage = addUsage(usage, call.usage);
    if (call.usage) input.emit({ type: "usage", usage: call.usage });
    const outcome = call.outcome;

    if (outcome.kind === "done") {
      const truncated = outcome.finishReason === "length" && call.toolCalls.length === 0 && text.trim() !== "";
      if (truncated && budget.recover(call.usage?.outputTokens)) {
        log.info(`answer cut off by the output cap; continuing with max_tokens ${budget.maxTokens}`);
        tail = continuation(text, LENGTH_CONTINUATION_NOTE);
        attempts = 0;
        continue;
      }
      return result(call, outcome);
    }
    if (outcome.kind === "aborted" || !isRetryable(outcome.errorKind) || attempts >= policy.maxAttempts) {
      return result(call, outcome);
    }
    const delay = backoffDelayMs(attempts, outcome.retryAfterMs, policy);
    log.warn(`model call failed (${outcome.errorKind}), attempt ${attempts}/${policy.maxAttempts}; retrying in ${(delay / 1000).toFixed(1)} s: ${outcome.message}`);
    try {
      await policy.sleep(delay, signal);
    } catch {
      return result(call, { kind: "aborted" });
    }
    if (signal.aborted) return result(call, { kind: "aborted" });
    if (text !== "") tail = continuation(text, RESUME_NOTE);
  }
}

/** The request tail that asks the model to go on from `partial`. */
function continuation(partial: string, note: string): ChatMessage[] {
  return [
    { role: "assistant", content: partial },
    { role: "user", content: note },
  ];
}
