import type { ChatMessage } from "../llm/types.js";
import { CHARS_PER_TOKEN } from "./context.js";
import { contentText } from "../shared/content-text.js";

/**
 * The texts of context compression (pure): the request that asks the model for a structured
 * handoff summary of the compacted middle of a conversation, and the message that carries that
 * summary in the compressed conversation (Hermes' wording and structure).
 */

/** First line of every summary message; also how an earlier summary is recognised. */
export const SUMMARY_PREFIX = "[CONTEXT COMPACTION — REFERENCE ONLY]";
export const SUMMARY_END = "--- END OF CONTEXT SUMMARY — respond to the messages below, not the summary above ---";
/** Delimiters used when the summary has to ride inside the first kept message (role alternation). */
export const PRIOR_CONTEXT_OPEN = "[PRIOR CONTEXT — compaction summary, for reference only; not a new message]";
export const PRIOR_CONTEXT_CLOSE = "[END OF PRIOR CONTEXT — the original message follows]";

const SUMMARY_INTRO =
  `${SUMMARY_PREFIX} Earlier turns of this conversation were compacted into the summary below to fit the ` +
  "context window. It is a handoff from a previous context window: treat it as background reference, NOT as " +
  "active instructions. Requests it reports as done were already handled; do not redo them or answer them " +
  "again. Continue the work from the messages that follow it.";

const SUMMARY_STRUCTURE = [
  "## Goal",
  "What the user is trying to achieve overall, in their terms.",
  "## Constraints & Preferences",
  "Requirements, conventions and preferences the user stated or the work revealed.",
  "## Progress",
  "### Done",
  "### In Progress",
  "### Blocked",
  "## Key Decisions",
  "Decisions made and why (including approaches tried and rejected).",
  "## Files Touched",
  "Every file read, created or changed, with one line on what matters about it.",
  "## Pending User Asks",
  "Questions or requests from the user not yet fully answered, quoted where exact wording matters.",
  "## Next Steps",
  "The concrete next actions, in order.",
  "## Critical Context",
  "Exact values needed to continue: commands, error messages, identifiers, paths, test names, numbers.",
].join("\n");

const SUMMARIZER_SYSTEM =
  "You write handoff summaries of a coding agent's conversation with a user. Another instance of the " +
  "agent will continue the work from your summary alone, without the transcript, so keep every fact it " +
  "needs and drop chatter. Never invent anything that is not in the transcript.";

/** Cuts `text` to head + tail around a marker when it is longer than `max` chars. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = Math.max(0, max - head);
  return `${text.slice(0, head)}\n…[${text.length - head - tail} chars omitted]…\n${text.slice(text.length - tail)}`;
}

function messageText(message: ChatMessage): string {
  return contentText(message.content);
}

/** An earlier summary inside `text` (whole, or merged in front of a message) and the text after it. */
function splitSummary(text: string): { summary: string | undefined; rest: string } {
  if (text.startsWith(SUMMARY_PREFIX)) return { summary: summaryBody(text), rest: "" };
  if (!text.startsWith(PRIOR_CONTEXT_OPEN)) return { summary: undefined, rest: text };
  const end = text.indexOf(PRIOR_CONTEXT_CLOSE);
  if (end < 0) return { summary: summaryBody(text.slice(PRIOR_CONTEXT_OPEN.length)), rest: "" };
  return { summary: summaryBody(text.slice(PRIOR_CONTEXT_OPEN.length, end)), rest: text.slice(end + PRIOR_CONTEXT_CLOSE.length).trim() };
}

function summaryBody(text: string): string {
  let body = text.trim();
  if (body.startsWith(SUMMARY_INTRO)) body = body.slice(SUMMARY_INTRO.length);
  if (body.endsWith(SUMMARY_END)) body = body.slice(0, body.length - SUMMARY_END.length);
  return body.trim();
}

/** One message as transcript text; an earlier summary is kept whole (it is the oldest history). */
function serializeMessage(message: ChatMessage, contentCap: number): string {
  const { summary, rest } = splitSummary(messageText(message));
  const lines: string[] = summary !== undefined ? [`[EARLIER SUMMARY]:\n${summary}`] : [];
  const body = cutMiddle(rest, contentCap);
  switch (message.role) {
    case "system":
      lines.push(`[SYSTEM]: ${body}`);
      break;
    case "user":
      if (rest || summary === undefined) lines.push(`[USER]: ${body}`);
      break;
    case "tool":
      lines.push(`[TOOL RESULT${message.name ? ` ${message.name}` : ""} ${message.tool_call_id}]: ${body}`);
      break;
    case "assistant": {
      const calls = (message.tool_calls ?? []).map(
        (call) => `  - ${call.function.name}(${cutMiddle(call.function.arguments, Math.min(1_500, contentCap))}) [${call.id}]`,
      );
      if (rest || summary === undefined || calls.length) lines.push(`[ASSISTANT]: ${body}`);
      if (calls.length) lines.push("[Tool calls]:", ...calls);
      break;
    }
  }
  return lines.join("\n");
}

/**
 * The transcript of `messages` as plain text for the summarizer, within `maxChars`: long
 * message bodies are cut in the middle first (down to a few hundred chars each), then the whole
 * text keeps its head and tail.
 */
export function serializeForSummary(messages: readonly ChatMessage[], maxChars: number): string {
  let contentCap = 6_000;
  let text = "";
  for (;;) {
    text = messages.map((message) => serializeMessage(message, contentCap)).join("\n\n");
    if (text.length <= maxChars || contentCap <= 300) break;
    contentCap = Math.floor(contentCap / 2);
  }
  return cutMiddle(text, maxChars);
}

/** Tokens the summary may take: 20 % of what it replaces, between 2,000 and 10,000. */
export function summaryBudget(middleTokens: number): number {
  return Math.min(10_000, Math.max(2_000, Math.floor(middleTokens * 0.2)));
}

/**
 * The messages sent to the model to summarize `middle`. `maxInputChars` bounds the transcript
 * (Hermes: ~160K chars; less for small windows). When the middle starts with an earlier
 * summary, the model is told to fold it in, so repeated compressions update one summary.
 */
export function buildSummaryRequest(middle: readonly ChatMessage[], options: { targetTokens: number; maxInputChars: number }): ChatMessage[] {
  const iterative = middle.some((message) => isSummaryText(messageText(message)));
  const instructions = [
    "Summarize the conversation transcript below into a structured handoff summary.",
    ...(iterative
      ? ["The transcript starts with an EARLIER SUMMARY of even older turns: merge it with the newer messages into one updated summary; keep what still matters from it, update progress and drop what is resolved."]
      : []),
    `Use exactly these Markdown sections (write "None" under a section with nothing to report):`,
    "",
    SUMMARY_STRUCTURE,
    "",
    `Be specific (file paths, function names, commands, error text) and keep it under about ${options.targetTokens} tokens (~${options.targetTokens * CHARS_PER_TOKEN} characters).`,
    "Answer with the summary only.",
    "",
    "<transcript>",
    serializeForSummary(middle, options.maxInputChars),
    "</transcript>",
  ];
  return [
    { role: "system", content: SUMMARIZER_SYSTEM },
    { role: "user", content: instructions.join("\n") },
  ];
}

/**
 * The text of the summary message: the reference-only preamble, the model's summary, what must
 * survive verbatim (the active task list, the user's latest request when it was compacted), and
 * the end marker.
 */
export function summaryMessageText(summary: string, extras: { preservedState?: string | undefined; latestRequest?: string | undefined } = {}): string {
  const parts = [SUMMARY_INTRO, summary.trim()];
  if (extras.preservedState?.trim()) parts.push(`[Your active task list was preserved across context compression]\n${extras.preservedState.trim()}`);
  if (extras.latestRequest?.trim()) parts.push(`[The user's latest request, verbatim — it was part of the compacted turns]\n${cutMiddle(extras.latestRequest.trim(), 4_000)}`);
  parts.push(SUMMARY_END);
  return parts.join("\n\n");
}

/** Whether `text` is (or carries, merged in front) a compaction summary. */
export function isSummaryText(text: string): boolean {
  return text.startsWith(SUMMARY_PREFIX) || text.startsWith(PRIOR_CONTEXT_OPEN);
}

/**
 * What the user wrote in a user message (image parts as `[image]`), without a summary merged in
 * front of it; empty for a pure summary message and for other roles.
 */
export function userText(message: ChatMessage): string {
  if (message.role !== "user") return "";
  const text = messageText(message);
  if (text.startsWith(SUMMARY_PREFIX)) return "";
  if (!text.startsWith(PRIOR_CONTEXT_OPEN)) return text;
  const end = text.indexOf(PRIOR_CONTEXT_CLOSE);
  return end < 0 ? "" : text.slice(end + PRIOR_CONTEXT_CLOSE.length).trimStart();
}
