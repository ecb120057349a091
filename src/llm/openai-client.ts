/**
 * What the two OpenAI wire providers (chat completions, Responses) share: their options, the
 * `openai` client built once on first use (the package loads then, so start-up does not pay for
 * it), and the reading of the SDK's errors.
 */
import { connectTimeoutMs, sdkTimeoutMs, type WireProviderOptions } from "./guarded-stream.js";
import { classifySdkError } from "./provider-errors.js";
import type { ProviderErrorKind, ProviderEvent } from "./types.js";
import { httpFetch } from "./http-fetch.js";

export type OpenAiModule = typeof import("openai");
export type OpenAiClient = InstanceType<OpenAiModule["OpenAI"]>;
export type LoadedOpenAi = { mod: OpenAiModule; client: OpenAiClient };
type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;

/** `baseUrl` includes the version path, e.g. `https://api.openai.com/v1`. */
export type OpenAiChatProviderOptions = WireProviderOptions;


/**
 * The client for `options`, created on the first call and reused; the SDK's own retries are off (the
 * agent loop owns retries) and OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment are never sent
 * to a third-party endpoint. A failed load is tried again on the next call.
 */
export function lazyOpenAiClient(options: OpenAiChatProviderOptions): () => Promise<LoadedOpenAi> {
  let loading: Promise<LoadedOpenAi> | undefined;
  return () => {
    loading ??= import("openai").then((mod) => ({
      mod,
      client: new mod.OpenAI({
        apiKey: options.apiKey,
        baseURL: options.baseUrl,
        defaultHeaders: options.headers,
        maxRetries: 0,
        timeout: sdkTimeoutMs(connectTimeoutMs(options)),
        logLevel: "off",
        organization: null,
        project: null,
        fetch: httpFetch,
      }),
    }));
    loading.catch(() => (loading = undefined));
    return loading;
  };
}

/**
 * A one-line error event for what the openai SDK threw (see `classifySdkError`). `kindForCode`, when
 * given, classifies errors sent inside a stream (no HTTP status) by their `code`.
 */
export function classifyOpenAiError(
  error: unknown,
  mod: OpenAiModule,
  providerId: string,
  redact: (text: string) => string,
  kindForCode?: (code: string | undefined, message: string) => ProviderErrorKind,
): ErrorEvent {
  return classifySdkError(
    error,
    {
      timeoutError: mod.APIConnectionTimeoutError,
      connectionError: mod.APIConnectionError,
      apiError: mod.APIError,
      readApiError: (raw) => {
        const apiError = raw as InstanceType<OpenAiModule["APIError"]>;
        const body = apiError.error as { message?: unknown; code?: unknown } | undefined;
        const status = apiError.status ?? (typeof body?.code === "number" ? body.code : undefined);
        const serverMessage = typeof body?.message === "string" ? body.message : apiError.message.replace(/^\d{3}\s+/, "");
        const code = typeof body?.code === "string" ? body.code : undefined;
        return {
          status,
          serverMessage,
          headers: apiError.headers ?? undefined,
          ...(kindForCode && status === undefined ? { kind: kindForCode(code, serverMessage) } : {}),
          ...(kindForCode ? { streamLabel: `stream error${code ? ` (${code})` : ""}` } : {}),
        };
      },
    },
    providerId,
    redact,
  );
}
