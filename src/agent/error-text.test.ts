import { describe, expect, it } from "vitest";
import { failureText, type FailureContext } from "./error-text.js";

const ctx: FailureContext = { providerLabel: "openrouter", keyHint: "OPENROUTER_API_KEY", model: "anthropic/claude-sonnet-4", attempts: 3 };

describe("failureText", () => {
  it("names the status, the provider and the key to check on an auth failure", () => {
    const text = failureText({ errorKind: "auth", status: 401, message: "openrouter: HTTP 401: User not found." }, { ...ctx, attempts: 1 });
    expect(text).toBe("401 from openrouter: check OPENROUTER_API_KEY (server said: User not found.)");
  });

  it("falls back to the provider's key when the source of the key is unknown", () => {
    const text = failureText({ errorKind: "auth", status: 403, message: "x: HTTP 403: forbidden" }, { providerLabel: "x", model: "m", attempts: 1 });
    expect(text).toBe("403 from x: check the API key for x (server said: forbidden)");
  });

  it("says what to do for each kind of failure, in one line", () => {
    const cases = [
      [{ errorKind: "rate_limit", status: 429, message: "openrouter: HTTP 429: slow down" }, "429 from openrouter: rate limited after 3 attempts; wait a minute"],
      [{ errorKind: "server", status: 502, message: "openrouter: HTTP 502: bad gateway" }, "502 from openrouter: the provider failed after 3 attempts; try again later"],
      [{ errorKind: "timeout", message: "openrouter: no data from the model for 90 s" }, "openrouter timed out after 3 attempts (no data from the model for 90 s); try again"],
      [{ errorKind: "network", message: "openrouter: connection failed: ECONNREFUSED" }, "cannot reach openrouter after 3 attempts (connection failed: ECONNREFUSED); check the network"],
      [{ errorKind: "context_overflow", status: 400, message: "openrouter: HTTP 400: maximum context length" }, "400 from openrouter: the conversation no longer fits anthropic/claude-sonnet-4's context window; run /compress to shrink it further, or start a new session (/new"],
      [{ errorKind: "images_unsupported", status: 400, message: "openrouter: HTTP 400: No endpoints found that support image input" }, "400 from openrouter: anthropic/claude-sonnet-4 does not accept images; send the request without them"],
      [{ errorKind: "payload_too_large", status: 413, message: "openrouter: HTTP 413: too big" }, "413 from openrouter: the request is too large; remove large attachments"],
      [{ errorKind: "content_filter", message: "openrouter: blocked" }, "openrouter: the provider's content filter blocked the answer"],
      [{ errorKind: "bad_request", status: 400, message: "openrouter: HTTP 400: no such model" }, "400 from openrouter: the request was rejected; check the model name (anthropic/claude-sonnet-4)"],
      [{ errorKind: "unknown", message: "openrouter: weird" }, "openrouter: the model call failed after 3 attempts (server said: weird)"],
    ] as const;
    for (const [failure, start] of cases) {
      const text = failureText(failure, ctx);
      expect(text.startsWith(start), text).toBe(true);
      expect(text).not.toContain("\n");
    }
  });

  it("says how often the conversation was compressed before a context overflow became final", () => {
    const failure = { errorKind: "context_overflow", status: 400, message: "openrouter: HTTP 400: maximum context length is 8192 tokens" } as const;
    expect(failureText(failure, { ...ctx, compressions: 1 })).toContain("context window even after compressing it; run /compress");
    expect(failureText(failure, { ...ctx, compressions: 3 })).toContain("even after compressing it 3 times; run /compress");
  });

  it("shortens long server messages and flattens whitespace", () => {
    const text = failureText({ errorKind: "server", status: 500, message: `openrouter: HTTP 500: ${"x\n".repeat(500)}` }, ctx);
    expect(text).not.toContain("\n");
    expect(text.length).toBeLessThan(400);
    expect(text).toContain("…");
  });
});
