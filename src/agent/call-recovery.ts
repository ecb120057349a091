/**
 * One model step that recovers from the errors a changed request can fix (hermes-agent-core §3.4):
 *
 * - `context_overflow` about the OUTPUT cap (the prompt fits, prompt + `max_tokens` does not, as
 *   the error states): the output cap is lowered to what fits for the rest of the turn, and the call
 *   is sent again (once per call).
 * - `context_overflow` and `payload_too_large` (HTTP 413): the conversation is compressed through
 *   the caller's `onContextOverflow` (the session's compressor, forced) and the call is sent again
 *   with the compressed messages, up to `MAX_OVERFLOW_COMPRESSIONS` times (Hermes' 3) while each
 *   compression changes something. A 413 that compression cannot fix is retried once with every
 *   image replaced by a note (for this call only). A window the error states is reported first
 *   (`onContextLimit`), so the compression already works with it.
 * - `images_unsupported` (a 4xx saying the model takes no images): every image part of the messages
 *   sent becomes a text note, the caller remembers the model is text-only (`textOnly.mark`), and the
 *   call is sent again. While `textOnly.known()` answers true, images are replaced before sending.
 *
 * Only what is sent changes: the history (and state.db) keep every message and image. A call that
 * showed text before failing is not recovered (the answer would be shown twice). A short thought
 * (`reasoning_delta` under the step's message id, not stored) tells the user what is being done.
 */
import { fittingOutputCap, parseContextOverflow } from "../llm/error-wording.js";
import type { ChatMessage, ModelRequest, UserContentPart } from "../llm/types.js";
import { log } from "../shared/logger.js";
import { runModelStep, type ModelStepInput, type ModelStepResult } from "./model-step.js";

/** Compressions per model call after the provider said the request is too long (Hermes: 3). */
export const MAX_OVERFLOW_COMPRESSIONS = 3;

/** What the provider said when it refused the request as too long. */
export interface ContextOverflowInfo {
  kind: "context_overflow" | "payload_too_large";
  /** The window the error stated, in tokens, when it stated one. */
  limitTokens?: number;
  /** The prompt's tokens as the provider counted them, when stated. */
  promptTokens?: number;
  /** 1 for the first compression of this call, up to `MAX_OVERFLOW_COMPRESSIONS`. */
  attempt: number;
  /** The provider's one-line message. */
  message: string;
}

/**
 * Compresses the conversation now because the provider refused it as too long: resolves with the
 * messages to send instead of the current ones (derived from `history`, which it must not change),
 * or undefined when nothing more can be compressed or `signal` fired. Must not reject.
 */
export type ContextOverflowHandler = (history: readonly ChatMessage[], info: ContextOverflowInfo, signal: AbortSignal) => Promise<ChatMessage[] | undefined>;

/** What the caller remembers about the model's image input, across turns. */
export interface TextOnlyMemory {
  /** True once the model is known to refuse images: they are replaced before every call. */
  known(): boolean;
  /** Called once when a call was refused for its images. Must not throw. */
  mark(): void;
}

export interface RecoveringStepInput extends Omit<ModelStepInput, "request"> {
  /** The conversation (what compression works on); never changed here. */
  history: readonly ChatMessage[];
  /** What this call sends of `history` (after `prepareMessages`). */
  messages: readonly ChatMessage[];
  /** The request for a list of messages (system prompt, tools, tail are the caller's). */
  request: (messages: readonly ChatMessage[]) => Omit<ModelRequest, "maxTokens">;
  model: string;
  onContextOverflow?: ContextOverflowHandler | undefined;
  /** Called with the window a context error stated, before any compression. Must not throw. */
  onContextLimit?: ((tokens: number) => void) | undefined;
  textOnly?: TextOnlyMemory | undefined;
}

/**
 * See the module doc. Each call goes through `step` (default `runModelStep`; the loop passes its
 * fallback chain), with the request rebuilt from the messages as they now are. The result is the
 * last call's, with `compressions`: how many compressions were made for it (named in the failure
 * text). Never throws; an abort during a compression ends the step as aborted.
 */
export async function runRecoveringStep<R extends ModelStepResult = ModelStepResult>(
  input: RecoveringStepInput,
  step: (input: ModelStepInput) => Promise<R> = runModelStep as (input: ModelStepInput) => Promise<R>,
): Promise<R & { compressions: number }> {
  const { signal, budget } = input;
  let messages = input.messages;
  let compressions = 0;
  let loweredOutput = false;
  let stripImages = false;
  let textOnly = input.textOnly?.known() === true;
  for (;;) {
    const sent = textOnly || stripImages ? withoutImages(messages, input.model) : messages;
    const called = await step({ ...input, request: input.request(sent) });
    const outcome = called.outcome;
    const result = { ...called, compressions };
    if (outcome.kind !== "error" || called.text !== "") return result;
    const thought = (text: string): void => input.emit({ type: "reasoning_delta", messageId: input.messageId, text: `\n[${text}]\n` });

    if (outcome.errorKind === "images_unsupported") {
      if (textOnly || !hasImages(messages)) return result;
      log.warn(`${input.model} refused image input; sending images as notes from now on: ${outcome.message}`);
      textOnly = true;
      input.textOnly?.mark();
      thought(`${input.model} does not accept images; retrying with each image replaced by a note`);
      continue;
    }
    if (outcome.errorKind !== "context_overflow" && outcome.errorKind !== "payload_too_large") return result;

    const facts = parseContextOverflow(outcome.message);
    if (facts.limit !== undefined) input.onContextLimit?.(facts.limit);
    const cap = outcome.errorKind === "context_overflow" && !loweredOutput ? fittingOutputCap(facts) : undefined;
    if (cap !== undefined) {
      loweredOutput = true;
      budget.lower(cap);
      log.warn(`the output cap does not fit the context window; max_tokens lowered to ${cap}: ${outcome.message}`);
      thought(`The requested output length does not fit the context window; retrying with max_tokens ${cap}`);
      continue;
    }
    if (input.onContextOverflow && compressions < MAX_OVERFLOW_COMPRESSIONS) {
      const window = facts.limit !== undefined ? ` (${grouped(facts.limit)} tokens)` : "";
      thought(`The request does not fit the model's context window${window}; compressing the conversation and retrying`);
      const info: ContextOverflowInfo = {
        kind: outcome.errorKind,
        attempt: compressions + 1,
        message: outcome.message,
        ...(facts.limit !== undefined ? { limitTokens: facts.limit } : {}),
        ...(facts.input !== undefined ? { promptTokens: facts.input } : {}),
      };
      const compressed = await input.onContextOverflow(input.history, info, signal);
      if (signal.aborted) return { ...result, outcome: { kind: "aborted" } };
      if (compressed) {
        compressions += 1;
        log.warn(`request too long for ${input.model}; compressed (attempt ${compressions}/${MAX_OVERFLOW_COMPRESSIONS}) and retrying: ${outcome.message}`);
        messages = compressed;
        continue;
      }
    }
    if (outcome.errorKind === "payload_too_large" && !stripImages && !textOnly && hasImages(messages)) {
      stripImages = true;
      log.warn(`request too large; retrying this call without its images: ${outcome.message}`);
      thought("The request is too large; retrying with each image replaced by a note");
      continue;
    }
    return result;
  }
}

/** The note an image part becomes when the model does not take images. */
export function imageOmittedNote(model: string): string {
  return `[image omitted: the model ${model} does not accept images]`;
}

/** Whether any user message carries an image part. */
export function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => message.role === "user" && typeof message.content !== "string" && message.content.some((part) => part.type === "image_url"));
}

/**
 * `messages` with every image part replaced by `imageOmittedNote(model)` (consecutive notes kept
 * apart); messages without images are returned as they are. Pure.
 */
export function withoutImages(messages: readonly ChatMessage[], model: string): ChatMessage[] {
  const note = imageOmittedNote(model);
  return messages.map((message) => {
    if (message.role !== "user" || typeof message.content === "string" || !message.content.some((part) => part.type === "image_url")) return message;
    const parts: UserContentPart[] = message.content.map((part) => (part.type === "image_url" ? { type: "text", text: note } : part));
    return { ...message, content: parts };
  });
}

/** Formats 12345 as "12,345" (locale-independent). */
function grouped(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
