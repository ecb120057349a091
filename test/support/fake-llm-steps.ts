/** The script steps of the scripted OpenAI-compatible server (see fake-llm.ts). */
import type { EndlessStep, HangStep } from "./fake-edges.js";

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Sent only when scripted. */
  completion_tokens_details?: { reasoning_tokens?: number };
  prompt_tokens_details?: { cached_tokens?: number };
  /** OpenRouter's usage accounting: what the call cost (USD credits). */
  cost?: number;
}

export interface FakeToolCall {
  /** Generated when absent; an empty string is sent as is (a server that gives no id). */
  id?: string;
  name: string;
  /** A string is sent verbatim (so it may be malformed JSON); an object is JSON-encoded. */
  arguments: string | Record<string, unknown>;
}

/** Plain assistant text. `chunks`, when given, are the exact streamed pieces (their join is the content). */
export interface TextStep {
  text: string;
  chunks?: string[];
  /** Pause before every streamed chunk after the first (before the response when not streaming). */
  delayMs?: number;
  usage?: Partial<FakeUsage>;
  finishReason?: string;
}

/** Tool calls, optionally preceded by text; arguments are streamed in several fragments per call. */
export interface ToolCallsStep {
  tool_calls: FakeToolCall[];
  text?: string;
  delayMs?: number;
  usage?: Partial<FakeUsage>;
  finishReason?: string;
}

/** Reasoning (in `reasoning_content` unless `reasoningField` says otherwise) followed by text. */
export interface ReasoningStep {
  reasoning: string;
  text: string;
  reasoningField?: "reasoning_content" | "reasoning";
  delayMs?: number;
  usage?: Partial<FakeUsage>;
  finishReason?: string;
}

/** A plain HTTP error response. `body` defaults to an OpenAI-style error JSON; a string is sent as is. */
export interface HttpErrorStep {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An answer a fault step starts streaming before it misbehaves. */
export type AnswerStep = TextStep | ToolCallsStep | ReasoningStep;

/**
 * A connection cut mid-stream: the first `cutAfterChunks` chunks of the answer are streamed (and handed to
 * the socket), then the socket is destroyed with no finish chunk and no `[DONE]`. A non-streaming request
 * gets its socket destroyed with no response.
 */
export type CutStreamStep = AnswerStep & { cutAfterChunks: number };

/**
 * A stalled stream: the first `stallAfterChunks` chunks of the answer are streamed, then nothing more and the
 * connection stays open until the client disconnects (or the server closes). A non-streaming request
 * never gets a response.
 */
export type StallStep = AnswerStep & { stallAfterChunks: number };

/**
 * Which requests a step answers: a step with `when` is served to the first request, in arrival
 * order, that it accepts (`body`: the parsed request JSON); a step without one accepts every
 * request. Requests take the first step, in script order, that accepts them.
 */
export interface StepMatcher {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON, as RecordedRequest.body
  when?: (body: any) => boolean;
}

export type ScriptStep = (AnswerStep | HttpErrorStep | CutStreamStep | StallStep | HangStep | EndlessStep) & StepMatcher;
