/**
 * Error classification shared by the wire providers (openai-chat, anthropic), so every provider
 * maps the same failure to the same `ProviderErrorKind`. Pure; never throws.
 */
import { errorMessage } from "../shared/errors.js";
import { CONTEXT_OVERFLOW, IMAGES_UNSUPPORTED } from "./error-wording.js";
import type { ProviderErrorKind, ProviderEvent } from "./types.js";

export { CONTEXT_OVERFLOW, IMAGES_UNSUPPORTED } from "./error-wording.js";

type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;

/**
 * The kind of an HTTP failure from its status and the server's message. A 4xx (or status-less)
 * error saying the model takes no images is `images_unsupported` (checked before the context
 * wordings: "image input exceeds the context" is rare, a text-only model's refusal is not).
 */
export function kindForStatus(status: number | undefined, serverMessage: string): ProviderErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status === 413) return "payload_too_large";
  if (status === 429) return "rate_limit";
  const clientSide = status === undefined || (status >= 400 && status < 500);
  if (clientSide && IMAGES_UNSUPPORTED.test(serverMessage)) return "images_unsupported";
  if (clientSide && CONTEXT_OVERFLOW.test(serverMessage)) return "context_overflow";
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

/** What an SDK's API error says, read by the SDK-specific side of `classifySdkError`. */
export interface ApiErrorFacts {
  status: number | undefined;
  serverMessage: string;
  headers: { get(name: string): string | null } | undefined;
  /** A kind the SDK's error type names exactly (e.g. Anthropic's `overloaded_error`), when it does. */
  kind?: ProviderErrorKind;
  /** Shown when there is no status (errors sent inside a stream). */
  streamLabel?: string;
}

/** The error classes of one vendor SDK, and how to read its API errors. */
export interface SdkErrorShape {
  timeoutError: abstract new (...args: never[]) => Error;
  connectionError: abstract new (...args: never[]) => Error;
  apiError: abstract new (...args: never[]) => Error;
  readApiError(error: Error): ApiErrorFacts;
}

/**
 * A one-line error event for anything a provider SDK threw: the message names the provider, the
 * status and the server's words, never the key (`redact`). Shared by every wire API.
 */
export function classifySdkError(error: unknown, sdk: SdkErrorShape, providerId: string, redact: (text: string) => string): ErrorEvent {
  const make = (kind: ProviderErrorKind, text: string, extra: Partial<ErrorEvent> = {}): ErrorEvent => ({
    type: "error",
    kind,
    message: redact(`${providerId}: ${text}`),
    ...extra,
  });
  if (error instanceof sdk.timeoutError) return make("timeout", "request timed out");
  if (error instanceof sdk.connectionError) {
    const cause = (error as { cause?: unknown }).cause;
    return make("network", `connection failed: ${cause ? errorMessage(cause) : error.message}`);
  }
  if (error instanceof sdk.apiError) {
    const facts = sdk.readApiError(error);
    const extra: Partial<ErrorEvent> = {};
    if (facts.status !== undefined) extra.status = facts.status;
    const retryAfterMs = facts.headers ? parseRetryAfterMs(facts.headers) : undefined;
    if (retryAfterMs !== undefined) extra.retryAfterMs = retryAfterMs;
    const text = facts.status !== undefined ? `HTTP ${facts.status}: ${facts.serverMessage}` : `${facts.streamLabel ?? "stream error"}: ${facts.serverMessage}`;
    return make(facts.kind ?? kindForStatus(facts.status, facts.serverMessage), text, extra);
  }
  if (error instanceof SyntaxError) return make("server", `malformed stream data: ${error.message}`);
  if (isNetworkError(error)) {
    const cause = (error as Error).cause;
    return make("network", `connection lost: ${errorMessage(error)}${cause ? ` (${errorMessage(cause)})` : ""}`);
  }
  return make("unknown", errorMessage(error));
}
