import type { ChatMessage } from "../llm/types.js";

/**
 * Corrections the user sends while a turn runs (Hermes' active-turn redirect), as the loop sees
 * them. The front end collects them; the loop takes them before each model call and right after
 * it, and stops the call in flight when one arrives during it.
 */
export interface TurnRedirect {
  /**
   * A signal for the model call about to start: it fires when a correction arrives during that
   * call (at once when one is already waiting). Called once per call; each call gets a fresh one.
   */
  watch(): AbortSignal;
  /** The corrections waiting, joined in arrival order, or undefined; clears them. Never throws. */
  take(): string | undefined;
}

/** Opens the replayed context of a response a correction stopped (Hermes' scaffold marker). */
export const REDIRECT_MARKER = "[This response was interrupted by a user correction.]";

/** The assistant's place in history when a correction came before it showed anything (Hermes' wording). */
export const REDIRECT_PLACEHOLDER = "[interrupt: no assistant output for this turn]";

/** How a second correction joins the first one still waiting (Hermes' wording). */
export const ADDITIONAL_CORRECTION = "[Additional user correction]";

/** Corrections waiting together, as one text (Hermes joins them this way). Pure. */
export function joinCorrections(corrections: readonly string[]): string | undefined {
  if (corrections.length === 0) return undefined;
  return corrections.join(`\n\n${ADDITIONAL_CORRECTION}\n`);
}

/**
 * The messages that carry `correction` into the running turn, after `history` (Hermes' shape):
 * what the stopped response had shown (`visible`, "" for nothing) stays as the assistant's
 * message, a placeholder when it showed nothing, so roles keep alternating; then the correction
 * as the user's message, preceded by the interrupted context and ending with the user's words.
 * Reasoning of the stopped response is never replayed. When history already ends with the
 * assistant, only the user's message is added. Pure.
 */
export function redirectMessages(history: readonly ChatMessage[], visible: string, correction: string): ChatMessage[] {
  const shown = visible.trim();
  const checkpoint = shown ? `${REDIRECT_MARKER}\n\nVisible response before the interruption:\n\n${shown}` : REDIRECT_MARKER;
  const user: ChatMessage = { role: "user", content: `[Context from the interrupted assistant response]\n${checkpoint}\n\n${correction}` };
  if (history.at(-1)?.role === "assistant") return [user];
  return [{ role: "assistant", content: shown || REDIRECT_PLACEHOLDER, finish_reason: "redirected" }, user];
}

const CONTEXT_HEAD = `[Context from the interrupted assistant response]\n${REDIRECT_MARKER}`;

/**
 * The user's own words of a correction `redirectMessages` made (`content`, with `previous` the
 * message stored before it), for showing the conversation again as the user typed it (Hermes
 * shows the words, the model gets the context); undefined when `content` is no such correction. Pure.
 */
export function correctionWords(content: string, previous: ChatMessage | undefined): string | undefined {
  if (!content.startsWith(CONTEXT_HEAD)) return undefined;
  const visible = previous && isRedirectedAssistant(previous) && previous.content !== REDIRECT_PLACEHOLDER ? (previous.content ?? "") : "";
  const prefix = visible ? `${CONTEXT_HEAD}\n\nVisible response before the interruption:\n\n${visible}\n\n` : `${CONTEXT_HEAD}\n\n`;
  return content.startsWith(prefix) ? content.slice(prefix.length) : undefined;
}

/** The assistant's message `redirectMessages` kept for a stopped response. */
export function isRedirectedAssistant(message: ChatMessage): message is Extract<ChatMessage, { role: "assistant" }> {
  return message.role === "assistant" && message.finish_reason === "redirected";
}
