/**
 * The store's public types. Times are Unix epoch milliseconds (the database keeps Hermes' REAL
 * seconds; conversion happens at the boundary).
 *
 * `StoredMessage` mirrors `ChatMessage` of src/llm/types.ts (the OpenAI chat shape) field for
 * field; the store may not import the llm layer, and a type test (codec.test.ts) keeps the two
 * mutually assignable.
 */
export interface StoredToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type StoredContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export type StoredMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | StoredContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: StoredToolCall[];
      reasoning?: string;
      /** Anthropic thinking blocks with signatures (opaque; sent back verbatim). */
      reasoning_details?: StoredReasoningDetail[];
      /** Responses API reasoning items (opaque; sent back verbatim). */
      codex_reasoning_items?: StoredReasoningItem[];
      finish_reason?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string; name?: string };

export type StoredReasoningDetail =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

export interface StoredReasoningItem {
  type: "reasoning";
  id?: string;
  encrypted_content?: string;
  summary: { type: "summary_text"; text: string }[];
}

export type MessageRole = StoredMessage["role"];

/** A stored message with its database id (ascending = conversation order) and time. */
export interface MessageRow {
  id: number;
  sessionId: string;
  timestamp: number;
  message: StoredMessage;
  /** For tool messages: what the tool reported for the editor, when it was stored. */
  toolDetails?: unknown;
}

/**
 * What a session is written with on its first message. A pure value: making one writes nothing
 * (`StateStore.createSession`), so a session that never gets a message leaves no trace.
 */
export interface SessionMeta {
  readonly id: string;
  readonly cwd: string;
  readonly model: string;
  readonly provider: string;
  readonly systemPrompt: string | null;
  readonly parentSessionId: string | null;
  /** `acp` unless said otherwise (`cli` for `hermes chat`). */
  readonly source: string;
  /** Extra fields for the `model_config` JSON beside `cwd` and `provider` (base_url, api_mode…). */
  readonly modelConfig: Readonly<Record<string, unknown>>;
}

export interface NewSession {
  id: string;
  cwd: string;
  model: string;
  provider: string;
  systemPrompt?: string | null;
  parentSessionId?: string | null;
  source?: string;
  modelConfig?: Record<string, unknown>;
}

/**
 * Where a session is kept: absent for hermes-acp's own database; `hermes` for Python Hermes'
 * state.db, read-only (see hermes-history.ts).
 */
export type HistoryOrigin = "hermes";

/** A stored session row. */
export interface SessionRecord {
  id: string;
  /** Set for a session read from Python Hermes' state.db. */
  origin?: HistoryOrigin;
  source: string;
  model: string | null;
  provider: string | null;
  modelConfig: Record<string, unknown>;
  cwd: string | null;
  title: string | null;
  systemPrompt: string | null;
  parentSessionId: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  lastActiveAt: number;
  messageCount: number;
  toolCallCount: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** What the session's model calls cost in USD, as far as known (provider-reported or from `pricing:`). */
  costUsd: number;
}

export interface UsageDelta {
  input?: number;
  output?: number;
  reasoning?: number;
  /** USD. */
  cost?: number;
}

export interface ListSessionsOptions {
  /** Only sessions whose cwd is this folder; compared as real paths (symlinks, `..` resolved). */
  cwd?: string;
  /** Only sessions of this source (`acp`, `cli`…). */
  source?: string;
  /** A session id from a previous page's `nextCursor`; the page starts after it. */
  cursor?: string;
  /** Page size, default 50, at most 1,000. */
  limit?: number;
}

export interface SessionSummary {
  id: string;
  /** Set for a session read from Python Hermes' state.db. */
  origin?: HistoryOrigin;
  source: string;
  cwd: string | null;
  title: string | null;
  model: string | null;
  startedAt: number;
  lastActiveAt: number;
  messageCount: number;
  parentSessionId: string | null;
}

export interface SessionPage {
  sessions: SessionSummary[];
  /** The last id of this page when more remain. */
  nextCursor?: string;
}
