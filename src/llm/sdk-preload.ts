import type { ApiMode } from "./types.js";

/**
 * Evaluates the SDK the wire API `apiMode` loads on its first call (`openai` or
 * `@anthropic-ai/sdk`), ahead of that call: the module cache keeps it, so the provider's own
 * `import()` then finds it ready. Node's fetch (undici) is not loaded: the bundled SDKs build
 * their headers with `HttpHeaders` and `httpFetch` answers `HttpResponse`s (fetch-classes.ts),
 * whose streamed bodies the SDKs iterate without releasing a reader. Builds no client and sends
 * nothing. Never rejects: a missing or broken SDK is left for the first call to report.
 */
export async function preloadWireSdk(apiMode: ApiMode): Promise<void> {
  try {
    await (apiMode === "anthropic_messages" ? import("@anthropic-ai/sdk") : import("openai"));
  } catch {
    // The provider's own load reports it, classified, on the first call.
  }
}
