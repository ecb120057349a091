/**
 * Error classification shared by the wire providers (openai-chat, anthropic), so every provider
 * maps the same failure to the same `ProviderErrorKind`. Pure; never throws.
 */
import type { ProviderErrorKind } from "./types.js";

/** Server wording that means "the prompt does not fit the model's context window". */
export const CONTEXT_OVERFLOW =
  /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|input is too long|exceeds? the (model'?s? )?(maximum|max|limit)|token limit|reduce the length/i;

/** The kind of an HTTP failure from its status and the server's message. */
export function kindForStatus(status: number | undefined, serverMessage: string): ProviderErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status === 413) return "payload_too_large";
  if (status === 429) return "rate_limit";
  if (CONTEXT_OVERFLOW.test(serverMessage) && (status === undefined || (status >= 400 && status < 500))) {
    return "context_overflow";
  }
  if (status === undefined || status >= 500) return "server";
  if (status >= 400) return "bad_request";
  return "unknown";
}

/** Milliseconds from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(headers: { get(name: string): string | null }): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** True for errors of the socket or of undici (`ECONNRESET`, `UND_ERR_*`, "terminated", "fetch failed"). */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return (
    (typeof code === "string" && /^(E[A-Z]+|UND_ERR\w*)$/.test(code)) ||
    (error instanceof TypeError && /terminated|fetch failed|network/i.test(error.message))
  );
}

/** One line, at most 500 characters, with the API key replaced wherever it appears. */
export function redactor(apiKey: string): (text: string) => string {
  return (text) => {
    let line = text.replace(/\s+/g, " ").trim();
    if (apiKey.length >= 4) line = line.split(apiKey).join("***");
    return line.length > 500 ? `${line.slice(0, 497)}...` : line;
  };
}
