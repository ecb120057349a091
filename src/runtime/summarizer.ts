import type { Summarize } from "../agent/compression.js";
import type { Provider } from "../llm/types.js";
import { abortError } from "../shared/abort.js";
import { HermesError } from "../shared/errors.js";

/**
 * Characters of text a reply may have per token of its `maxTokens` (a token is about 4): a reply
 * past that ignores its output cap (a hostile or broken endpoint) and is refused, not collected.
 */
const MAX_CHARS_PER_TOKEN = 16;

/**
 * The `summarize` function context compression uses: one call to the session's provider and
 * model, without tools, answering the streamed text (reasoning, and `<think>` blocks inside the
 * text, left out). Rejects with HermesError `provider_error` naming the provider when the call
 * fails or the text grows past `MAX_CHARS_PER_TOKEN` × `maxTokens` (the stream is stopped), or an
 * AbortError when the signal fires. No retries: the compressor decides what a failure means.
 */
export function createSummarizer(provider: () => Provider, model: () => string, what = "summary request"): Summarize {
  return async (messages, signal, options) => {
    const current = provider();
    const maxChars = Math.max(1, options.maxTokens) * MAX_CHARS_PER_TOKEN;
    let text = "";
    for await (const event of current.stream({ model: model(), messages, maxTokens: options.maxTokens }, signal)) {
      if (event.type === "text_delta") {
        text += event.text;
        if (text.length > maxChars) {
          throw new HermesError("provider_error", `${what} to ${current.id} failed: the reply is longer than ${maxChars} characters for ${options.maxTokens} tokens`);
        }
      } else if (event.type === "error") {
        if (event.kind === "aborted" || signal.aborted) throw abortError();
        throw new HermesError("provider_error", `${what} to ${current.id} failed: ${event.message}`);
      }
    }
    if (signal.aborted) throw abortError();
    return stripThinking(text);
  };
}

/**
 * Removes `<think>…</think>`-style blocks (tags in any case; an unclosed one drops the rest) from
 * model text, trimmed. One pass over the text, whatever it holds (many unclosed tags cost no more).
 */
export function stripThinking(text: string): string {
  const lower = text.toLowerCase();
  const open = /<(think|thinking|reasoning)>/g;
  let kept = "";
  let at = 0;
  for (;;) {
    open.lastIndex = at;
    const found = open.exec(lower);
    if (!found) {
      kept += text.slice(at);
      break;
    }
    kept += text.slice(at, found.index);
    const closeTag = `</${found[1]}>`;
    const close = lower.indexOf(closeTag, open.lastIndex);
    if (close === -1) break;
    at = close + closeTag.length;
  }
  return kept.trim();
}
