/** Chat history in the OpenAI chat-completions shape; also what state.db stores. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type UserContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | UserContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: ToolCall[];
      /** Reasoning text the model produced; kept for history and replay, not sent back by default. */
      reasoning?: string;
      /**
       * Anthropic thinking blocks with their signatures, in the order the model produced them; sent
       * back unchanged before the assistant's text and tool calls (the Messages API requires it while
       * tool use continues). Hermes' column name.
       */
      reasoning_details?: ReasoningDetail[];
      /** Responses API reasoning items (encrypted when the provider returns them); sent back as input items. Hermes' column name. */
      codex_reasoning_items?: ResponsesReasoningItem[];
      finish_reason?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string; name?: string };

/** One Anthropic thinking block as the API returned it; `signature` / `data` are opaque and sent back verbatim. */
export type ReasoningDetail =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** One Responses API `reasoning` output item; `encrypted_content` is opaque and sent back verbatim. */
export interface ResponsesReasoningItem {
  type: "reasoning";
  id?: string;
  encrypted_content?: string;
  summary: { type: "summary_text"; text: string }[];
}

/** A tool as the model sees it: name, description, JSON schema of its arguments. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  maxTokens?: number;
  temperature?: number;
  /** Reasoning effort for models that take one; `none` turns reasoning off where the API allows. */
  reasoningEffort?: "none" | "low" | "medium" | "high";
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens?: number;
  /** Prompt tokens read from the provider's prompt cache (part of `inputTokens`). */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (part of `inputTokens`; Anthropic only). */
  cacheWriteTokens?: number;
  /** What the call cost in USD, when the provider reports it (OpenRouter's `usage.cost`). */
  costUsd?: number;
}

export type ProviderErrorKind =
  | "auth"
  | "rate_limit"
  | "server"
  | "timeout"
  | "context_overflow"
  | "payload_too_large"
  /** The model (or every endpoint serving it) takes no image input. */
  | "images_unsupported"
  | "content_filter"
  | "bad_request"
  | "network"
  | "aborted"
  | "unknown";

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "unknown";

/**
 * Normalized stream events. A stream ends with exactly one `done` or one `error` event,
 * and nothing follows it. Tool-call events for one call share `index`.
 */
export type ProviderEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; argumentsDelta: string }
  | { type: "tool_call_end"; index: number; id: string; name: string; arguments: string }
  | { type: "usage"; usage: TokenUsage }
  /** A complete thinking block (Anthropic) to keep with the assistant message; its text was already sent as `reasoning_delta`. */
  | { type: "reasoning_detail"; detail: ReasoningDetail }
  /** A complete reasoning item (Responses API) to keep with the assistant message. */
  | { type: "reasoning_item"; item: ResponsesReasoningItem }
  | { type: "done"; finishReason: FinishReason }
  | { type: "error"; kind: ProviderErrorKind; message: string; status?: number; retryAfterMs?: number };

/**
 * A model endpoint. `stream` never throws and never rejects: every failure, including an
 * abort, arrives as an `error` event. Aborting the signal ends the stream promptly.
 */
export interface Provider {
  readonly id: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
}

/**
 * The wire API an endpoint speaks: OpenAI chat completions, OpenAI's Responses API (Hermes'
 * `codex_responses`), or Anthropic's native Messages API (`api.anthropic.com`, and endpoints
 * whose path ends in `/anthropic`).
 */
export type ApiMode = "chat_completions" | "responses" | "anthropic_messages";

/** Where and how to call the model, after provider resolution. Contains the API key: never log it. */
export interface ResolvedProvider {
  /** Provider id: `openrouter`, `openai`, `anthropic`, `nous`, `ollama`, `custom`, or a `providers:` entry name. */
  provider: string;
  apiMode: ApiMode;
  baseUrl: string;
  apiKey: string;
  /**
   * Every key of the provider's credential pool, `apiKey` first (`api_keys: [...]` or
   * `key_env: [A, B]`); absent or one entry = no pool. Never log them.
   */
  apiKeys?: string[];
  model: string;
  /** Where the settings came from, for `--check` and logs (never contains the key). */
  source: string;
}
