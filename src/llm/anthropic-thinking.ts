/**
 * Extended thinking on the Messages API: which form a Claude model takes (a fixed `budget_tokens`,
 * or adaptive thinking steered by `output_config.effort`), the budget per reasoning effort, and
 * when a request must go without it. Pure; never throws.
 */
import type { MessageParam, OutputConfig, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages";
import { supportsReasoningEffort } from "./catalog.js";
import type { ModelRequest } from "./types.js";

/**
 * Thinking tokens per effort for models with a fixed budget (Claude 3.7, 4, 4.1, 4.5). The API's
 * floor is 1,024 and returns diminish above ~32k.
 */
export const THINKING_BUDGETS: Readonly<Record<"low" | "medium" | "high", number>> = { low: 2_048, medium: 8_000, high: 24_000 };
/** Output tokens kept for the answer on top of a fixed thinking budget (the budget counts against `max_tokens`). */
export const THINKING_ANSWER_TOKENS = 8_000;
/** The least `max_tokens` of an adaptive-thinking request (thinking and answer share it). */
export const ADAPTIVE_MIN_MAX_TOKENS = 32_000;

/**
 * `adaptive` for the models that take (or only take) `thinking: {type: "adaptive"}` with
 * `output_config.effort`: Claude 4.6 and later (Opus / Sonnet / Haiku 4.6+, every Claude 5),
 * Mythos and Fable; `budget` for earlier thinking models (`thinking: {type: "enabled",
 * budget_tokens}`, which Claude 4.7 and later refuse). A vendor prefix is ignored; `.` and `-`
 * spell the version alike (`claude-opus-4.6`).
 */
export function thinkingStyle(model: string): "adaptive" | "budget" {
  const name = (model.toLowerCase().split("/").pop() ?? "").trim().replace(/\./g, "-");
  if (/^claude-(mythos|fable)(-|$)/.test(name)) return "adaptive";
  // claude-opus-4-6, claude-sonnet-4-20250514 (minor absent: a date is not a version), claude-3-7-sonnet
  const named = /^claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?=-|$)/.exec(name);
  const versioned = named ?? /^claude-(\d+)(?:-(\d{1,2}))?(?=-|$)/.exec(name);
  if (!versioned) return "budget";
  const major = Number(versioned[1]);
  const minor = versioned[2] === undefined ? 0 : Number(versioned[2]);
  return major > 4 || (major === 4 && minor >= 6) ? "adaptive" : "budget";
}

/** What a request carries for thinking: the `thinking` and `output_config` fields (when any) and its `max_tokens`. */
export interface ThinkingParams {
  thinking?: ThinkingConfigParam;
  output_config?: OutputConfig;
  max_tokens: number;
}

/**
 * The thinking fields of a request for `request.model` with `maxTokens` as its output cap:
 * nothing (and `maxTokens` unchanged) when the request sets no effort, sets `none`, names a model
 * without extended thinking (see `supportsReasoningEffort`; Anthropic-compatible endpoints serving
 * other models included), or when `messages` continue a tool use whose assistant turn carries no
 * thinking block (see `continuesToolUseWithoutThinking`: the API refuses thinking then). Otherwise
 * `adaptive` models get `thinking: {type: "adaptive", display: "summarized"}` (the thoughts are
 * shown, not omitted) with `output_config.effort` = the effort and `max_tokens` at least
 * ADAPTIVE_MIN_MAX_TOKENS; `budget` models get `thinking: {type: "enabled", budget_tokens}` from
 * THINKING_BUDGETS with `max_tokens` raised to at least budget + THINKING_ANSWER_TOKENS (the API
 * requires `max_tokens` > `budget_tokens`). Models that think by default keep doing so at `none`.
 * Temperature is never sent by this provider, so nothing conflicts with thinking.
 */
export function thinkingParams(request: ModelRequest, maxTokens: number, messages: readonly MessageParam[]): ThinkingParams {
  const effort = request.reasoningEffort;
  if (!effort || effort === "none" || !supportsReasoningEffort(request.model)) return { max_tokens: maxTokens };
  if (continuesToolUseWithoutThinking(messages)) return { max_tokens: maxTokens };
  if (thinkingStyle(request.model) === "adaptive") {
    return { thinking: { type: "adaptive", display: "summarized" }, output_config: { effort }, max_tokens: Math.max(maxTokens, ADAPTIVE_MIN_MAX_TOKENS) };
  }
  const budget = THINKING_BUDGETS[effort];
  return { thinking: { type: "enabled", budget_tokens: budget }, max_tokens: Math.max(maxTokens, budget + THINKING_ANSWER_TOKENS) };
}

/**
 * True when the conversation ends in tool results (the model's tool use goes on) and the assistant
 * turn that asked for them does not open with a thinking or redacted-thinking block: a turn
 * another provider answered, or one made while thinking was off. The Messages API refuses such a
 * request with thinking enabled, so thinking waits until the tool use is over.
 */
export function continuesToolUseWithoutThinking(messages: readonly MessageParam[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== "user" || typeof last.content === "string" || !last.content.some((block) => block.type === "tool_result")) return false;
  const asked = messages.at(-2);
  if (asked?.role !== "assistant" || typeof asked.content === "string") return false;
  const first = asked.content[0];
  return first?.type !== "thinking" && first?.type !== "redacted_thinking";
}
