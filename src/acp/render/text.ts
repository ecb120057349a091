import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";

/** Display caps for tool results in the editor (DESIGN §6: 5,000–7,000 chars, then a note). */
export const DISPLAY_LIMIT = 5000;
export const DISPLAY_LIMIT_LARGE = 7000;

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** Keeps `limit - 100` chars and appends a note with the total, as Hermes' renderers do. */
export function truncate(text: string, limit = DISPLAY_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, Math.max(0, limit - 100))}\n... (${text.length} chars total, truncated)`;
}

/** A fence of backticks longer than any run inside `text`, so `N|` lines never render as tables. */
export function fenced(text: string, info = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/**
 * Parses a result's text as JSON, falling back to the first JSON value in text like
 * `{...}\n\n[Hint: …]`. Only for results nothing typed describes (tools without a details type,
 * calls without details): typed renderers read `details`.
 */
export function parseJsonResult(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    const start = content.search(/[[{]/);
    if (start < 0) return undefined;
    const close = content[start] === "{" ? "}" : "]";
    for (let end = content.lastIndexOf(close); end > start; end = content.lastIndexOf(close, end - 1)) {
      try {
        return JSON.parse(content.slice(start, end + 1));
      } catch {
        // try a shorter prefix
      }
    }
    return undefined;
  }
}

const errorBody = z.object({ error: z.string() });

/**
 * The plain-text rendering of a failed call's result: the `error` of a JSON error body
 * (`{"error": …}`, the tools' convention), or the text itself. For failures without typed details
 * (the runner's own errors, rows stored before details were).
 */
export function errorText(content: string): string {
  const parsed = errorBody.safeParse(parseJsonResult(content));
  return parsed.success ? parsed.data.error : content;
}
