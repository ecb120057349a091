import type { Summarize } from "../agent/compression.js";
import type { Provider } from "../llm/types.js";
import { abortError } from "../shared/abort.js";
import { HermesError } from "../shared/errors.js";

/**
 * The `summarize` function context compression uses: one call to the session's provider and
 * model, without tools, answering the streamed text (reasoning, and `<think>` blocks inside the
 * text, left out). Rejects with HermesError `provider_error` naming the provider when the call
 * fails, or an AbortError when the signal fires. No retries: the compressor decides what a
 * failure means.
 */
export function createSummarizer(provider: () => Provider, model: () => string, what = "summary request"): Summarize {
  return async (messages, signal, options) => {
    const current = provider();
    let text = "";
    for await (const event of current.stream({ model: model(), messages, maxTokens: options.maxTokens }, signal)) {
      if (event.type === "text_delta") text += event.text;
      else if (event.type === "error") {
        if (event.kind === "aborted" || signal.aborted) throw abortError();
        throw new HermesError("provider_error", `${what} to ${current.id} failed: ${event.message}`);
      }
    }
    if (signal.aborted) throw abortError();
    return stripThinking(text);
  };
}

/** Removes `<think>…</think>`-style blocks (and an unclosed one at the end) from model text. */
export function stripThinking(text: string): string {
  return text
    .replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, "")
    .replace(/<(think|thinking|reasoning)>[\s\S]*$/i, "")
    .trim();
}
