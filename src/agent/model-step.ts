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
 *
 * A retry wait longer than `RETRY_NOTICE_MIN_MS` is announced before it starts, as a thought
 * (`reasoning_delta` under the step's message id) naming the wait, the reason and the attempt; the
 * thought is not part of the stored reasoning. A response stopped by the size cap (`capped`) ends the
 * step at once: it is neither continued nor retried; so does a spent quota or credit (`isQuotaError`),
 * which no backoff cures (the fallback chain may).
 */
import { isQuotaError } from "../llm/credential-pool.js";
import type { ChatMessage, ModelRequest, Provider, ProviderErrorKind, TokenUsage } from "../llm/types.js";
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
  /** Size cap of one response (`model.max_response_chars`). Default: DEFAULT_MAX_RESPONSE_CHARS. */
  maxResponseChars?: number;
  /**
   * Visible text of this message already shown by an earlier step (another model that failed
   * mid-answer): the first call resumes from it (RESUME_NOTE) and the result's `text` starts with it.
   */
  resumeFrom?: string;
}

/** Retry waits longer than this are shown to the user. */
export const RETRY_NOTICE_MIN_MS = 3_000;

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
  let text = input.resumeFrom ?? "";
  let reasoning = "";
  let usage: TokenUsage | undefined;
  let tail: ChatMessage[] = text ? continuation(text, RESUME_NOTE) : [];
  let attempts = 0;
  const result = (call: ModelCallResult, outcome: ModelCallOutcome): ModelStepResult => ({
    text,
    reasoning,
    toolCalls: outcome.kind === "done" ? call.toolCalls : [],
    ...(outcome.kind === "done" && call.reasoningDetails ? { reasoningDetails: call.reasoningDetails } : {}),
    ...(outcome.kind === "done" && call.reasoningItems ? { reasoningItems: call.reasoningItems } : {}),
    usage,
    outcome,
    attempts,
    ...(call.capped ? { capped: true } : {}),
  });

  for (;;) {
    attempts += 1;
    const maxTokens = budget.maxTokens;
    const request: ModelRequest = {
      ...input.request,
      messages: [...input.request.messages, ...tail],
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    };
    const call = await callModel(input.provider, request, input.messageId, signal, input.emit, input.maxResponseChars);
    text += call.text;
    reasoning += call.reasoning;
    usage = addUsage(usage, call.usage);
    if (call.usage) input.emit({ type: "usage", usage: call.usage });
    const outcome = call.outcome;

    if (outcome.kind === "done") {
      if (call.capped) return result(call, outcome);
      const truncated = outcome.finishReason === "length" && call.toolCalls.length === 0 && text.trim() !== "";
      if (truncated && budget.recover(call.usage?.outputTokens)) {
        log.info(`answer cut off by the output cap; continuing with max_tokens ${budget.maxTokens}`);
        tail = continuation(text, LENGTH_CONTINUATION_NOTE);
        attempts = 0;
        continue;
      }
      return result(call, outcome);
    }
    // A spent quota or credit (429 "insufficient_quota", 402) does not come back within a backoff.
    if (outcome.kind === "aborted" || !isRetryable(outcome.errorKind) || isQuotaError(outcome) || attempts >= policy.maxAttempts) {
      return result(call, outcome);
    }
    const delay = backoffDelayMs(attempts, outcome.retryAfterMs, policy);
    log.warn(`model call failed (${outcome.errorKind}), attempt ${attempts}/${policy.maxAttempts}; retrying in ${(delay / 1000).toFixed(1)} s: ${outcome.message}`);
    if (delay > RETRY_NOTICE_MIN_MS) input.emit({ type: "reasoning_delta", messageId: input.messageId, text: retryNotice(outcome, delay, attempts, policy.maxAttempts) });
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

const RETRY_REASONS: Readonly<Partial<Record<ProviderErrorKind, string>>> = {
  rate_limit: "the provider is rate-limiting requests",
  server: "the provider reported a server error",
  timeout: "the model did not respond in time",
  network: "the connection to the model failed",
};

/** One line for the user: why the call failed, how long the wait is, which attempt comes next. */
export function retryNotice(
  outcome: Extract<ModelCallOutcome, { kind: "error" }>,
  delayMs: number,
  failedAttempts: number,
  maxAttempts: number,
): string {
  const reason = RETRY_REASONS[outcome.errorKind] ?? "the model call failed";
  const status = outcome.status !== undefined ? ` (HTTP ${outcome.status})` : "";
  const total = Math.round(delayMs / 1000);
  const wait = total >= 60 ? `${Math.floor(total / 60)} min${total % 60 ? ` ${total % 60} s` : ""}` : `${total} s`;
  return `\n[Waiting ${wait} before retrying: ${reason}${status}. Attempt ${failedAttempts + 1} of ${maxAttempts} follows.]\n`;
}
