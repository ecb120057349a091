import type { ChatMessage, TokenUsage } from "../llm/types.js";
import { abortError, isAbortError } from "../shared/abort.js";
import { errorMessage, HermesError } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import {
  buildSummaryRequest,
  PRIOR_CONTEXT_CLOSE,
  PRIOR_CONTEXT_OPEN,
  summaryBudget,
  summaryMessageText,
  userText,
} from "./compression-summary.js";
import { CHARS_PER_TOKEN, estimateMessagesTokens } from "./context.js";
import type { CompactionEvent, CompactionTrigger } from "./events.js";
import { newId } from "../shared/ids.js";

/**
 * Context compression (Hermes' context compressor, without I/O). When the next request would
 * pass `threshold` × the model's window, the conversation the model is sent keeps its first
 * `protectFirstN` and last `protectLastN` messages and the middle becomes one structured summary
 * written by the model. The session's history is never changed: the compressed view is derived
 * from it on every call, and the summary is cached until new messages push the request past the
 * threshold again (the next compression folds the earlier summary into a new one).
 */

export interface CompressionSettings {
  /** Automatic compression; `compressNow` works either way. */
  enabled: boolean;
  /** Fraction of the window at which the request is compressed (0.5). */
  threshold: number;
  protectFirstN: number;
  protectLastN: number;
}

/** The settings from config.yaml's `compression:` section. */
export function compressionSettings(config: { enabled: boolean; threshold: number; protect_first_n: number; protect_last_n: number }): CompressionSettings {
  return { enabled: config.enabled, threshold: config.threshold, protectFirstN: config.protect_first_n, protectLastN: config.protect_last_n };
}

/**
 * Asks the model for the text answering `messages` (no tools). Rejects when the call fails or is
 * aborted; `maxTokens` bounds the answer.
 */
export type Summarize = (messages: ChatMessage[], signal: AbortSignal, options: { maxTokens: number }) => Promise<string>;

export interface CompressionReport {
  /** False when there was nothing between the protected head and tail to compress. */
  compressed: boolean;
  beforeMessages: number;
  afterMessages: number;
  /** Estimated tokens of the whole request (system prompt and tools included). */
  beforeTokens: number;
  afterTokens: number;
  /** `A -> B messages, ~X -> ~Y tokens`, or why nothing was compressed. */
  text: string;
}

export interface ContextCompressorOptions {
  settings: CompressionSettings;
  /** The model's window in tokens; asked on every call (a catalog may learn it later). */
  contextWindow: () => number;
  /** Tokens of the request besides its messages: system prompt and tool schemas. */
  overheadTokens: () => number;
  summarize: Summarize;
  /** Called after every compression, automatic or forced. Must not throw. */
  onCompressed?: (report: CompressionReport) => void;
  /** Told when each compression starts and how it ends (see `CompactionEvent`). Must not throw. */
  onCompaction?: (event: CompactionEvent) => void;
  /** State kept verbatim in the summary message (the active task list), if any. */
  preservedState?: () => string | undefined;
}

/** Where the protected head ends and the protected tail starts (indices into the messages). */
export interface CompressionPlan {
  headEnd: number;
  tailStart: number;
}

/**
 * The head and tail boundaries for `messages`, or undefined when nothing lies between them. The
 * head is extended over the tool results following it, and the tail start is moved back to the
 * assistant message whose tool calls it would otherwise cut off, so a tool call and its results
 * are never split. The tail keeps at least one message.
 */
export function planCompression(messages: readonly ChatMessage[], settings: Pick<CompressionSettings, "protectFirstN" | "protectLastN">): CompressionPlan | undefined {
  const count = messages.length;
  let headEnd = Math.min(Math.max(0, settings.protectFirstN), count);
  while (headEnd < count && messages[headEnd]?.role === "tool") headEnd += 1;
  let tailStart = Math.max(headEnd, count - Math.max(1, settings.protectLastN));
  while (tailStart > headEnd && messages[tailStart]?.role === "tool") tailStart -= 1;
  return tailStart > headEnd ? { headEnd, tailStart } : undefined;
}

/** The compressed view's fixed part: `prefix`, then the history from `resumeAt` on. */
interface Compacted {
  prefix: ChatMessage[];
  resumeAt: number;
  /** `history[resumeAt - 1]` when compacted; a different object there means a different history. */
  anchor: ChatMessage | undefined;
}

/** Formats 12345 as "12,345" (locale-independent). */
function grouped(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export class ContextCompressor {
  private compacted: Compacted | undefined;
  /** Bumped by every compression; reported usage from before one no longer describes the view. */
  private generation = 0;
  private reported: { anchor: number; last: ChatMessage | undefined; inputTokens: number; generation: number } | undefined;
  /** Automatic compression waits until history reaches this length (after a failed or useless try). */
  private retryAtLength = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ContextCompressorOptions) {}

  /** The messages the model would be sent for `history` now (the cached summary applied). */
  view(history: readonly ChatMessage[]): ChatMessage[] {
    const compacted = this.compacted;
    if (!compacted) return [...history];
    if (history.length < compacted.resumeAt || (compacted.resumeAt > 0 && history[compacted.resumeAt - 1] !== compacted.anchor)) {
      this.compacted = undefined;
      return [...history];
    }
    return [...compacted.prefix, ...history.slice(compacted.resumeAt)];
  }

  /** The model's context window in tokens, as the compressor sees it now. */
  window(): number {
    return this.options.contextWindow();
  }

  /** Whether a summary currently replaces part of the history. */
  get isCompacted(): boolean {
    return this.compacted !== undefined;
  }

  /**
   * Tokens of the next request for `history`: the provider's reported prompt tokens of the
   * latest call plus an estimate of what was added since, when known; else the estimate of the
   * whole request (system prompt, messages, tools).
   */
  estimate(history: readonly ChatMessage[]): number {
    const reported = this.reported;
    if (reported && reported.generation === this.generation && history.length >= reported.anchor && history[reported.anchor - 1] === reported.last) {
      return reported.inputTokens + estimateMessagesTokens(history.slice(reported.anchor));
    }
    return this.options.overheadTokens() + estimateMessagesTokens(this.view(history));
  }

  /**
   * Records the usage a model call reported, with `history` as it was when the call was made
   * (before its answer was appended). Ignored without prompt tokens.
   */
  noteUsage(usage: TokenUsage, history: readonly ChatMessage[]): void {
    if (!(usage.inputTokens > 0)) return;
    this.reported = { anchor: history.length, last: history.at(-1), inputTokens: usage.inputTokens, generation: this.generation };
  }

  /**
   * The `prepareMessages` hook of a turn: the messages to send for `history`, compressed first
   * when the request passes the threshold. Never rejects: when the summary cannot be made, the
   * uncompressed view is sent (or, if it cannot fit the window at all, the middle is replaced by
   * a note saying it was dropped) and automatic compression pauses for a few messages.
   */
  prepareMessages(history: readonly ChatMessage[], signal: AbortSignal): Promise<ChatMessage[]> {
    return this.serial(async () => {
      const view = this.view(history);
      const { settings } = this.options;
      if (!settings.enabled) return view;
      const window = this.options.contextWindow();
      const used = this.estimate(history);
      if (used < settings.threshold * window) return view;
      if (history.length < this.retryAtLength && used <= window) return view;
      const pause = history.length + Math.max(2, Math.floor(settings.protectLastN / 2));
      try {
        const report = await this.compress(history, signal, "model", "auto");
        if (!report || report.afterTokens >= settings.threshold * window) this.retryAtLength = pause;
      } catch (error) {
        if (signal.aborted) return view;
        this.retryAtLength = pause;
        log.warn(`context compression failed: ${errorMessage(error)}`);
        if (used > window) await this.compress(history, signal, { failure: errorMessage(error) }, "auto").catch(() => undefined);
      }
      return this.view(history);
    });
  }

  /**
   * Compresses now, whatever the threshold (the `/compress` command). Resolves with what
   * changed; rejects with HermesError `provider_error` when the summary call fails (nothing
   * changes then), or an AbortError when `signal` fires.
   */
  compressNow(history: readonly ChatMessage[], signal: AbortSignal): Promise<CompressionReport> {
    return this.serial(async () => {
      try {
        const report = await this.compress(history, signal, "model", "manual");
        if (report) return report;
      } catch (error) {
        if (signal.aborted || isAbortError(error)) throw abortError();
        throw new HermesError("provider_error", `Could not compress the conversation: ${errorMessage(error)}`);
      }
      const messages = this.view(history);
      const tokens = this.requestTokens(messages);
      const { protectFirstN, protectLastN } = this.options.settings;
      return {
        compressed: false,
        beforeMessages: messages.length,
        afterMessages: messages.length,
        beforeTokens: tokens,
        afterTokens: tokens,
        text: `Nothing to compress: ${messages.length} messages, ~${grouped(tokens)} tokens (the first ${protectFirstN} and last ${protectLastN} messages are always kept)`,
      };
    });
  }

  /**
   * The forced compression after the provider refused the request as too long (context overflow,
   * HTTP 413), whatever the threshold and whether automatic compression is on (like `/compress`,
   * it changes only what is sent). Attempt n (1-based) protects `protectLastN / 2^(n-1)` tail
   * messages (at least 1), so a repeated attempt has something new to fold. The summary comes from
   * the model; when that call fails, the middle is replaced by a note that it was dropped (the
   * request cannot be sent as it is). Resolves with the view to send now, or undefined when nothing
   * was left to compress or `signal` fired. Never rejects; runs after any compression in progress.
   */
  compressForOverflow(history: readonly ChatMessage[], signal: AbortSignal, attempt = 1): Promise<ChatMessage[] | undefined> {
    return this.serial(async () => {
      const { protectFirstN, protectLastN } = this.options.settings;
      const plan = { protectFirstN, protectLastN: Math.max(1, Math.floor(protectLastN / 2 ** Math.max(0, attempt - 1))) };
      let report: CompressionReport | undefined;
      try {
        report = await this.compress(history, signal, "model", "overflow", plan);
      } catch (error) {
        if (signal.aborted) return undefined;
        log.warn(`context compression after an overflow failed: ${errorMessage(error)}`);
        report = await this.compress(history, signal, { failure: errorMessage(error) }, "overflow", plan).catch(() => undefined);
      }
      return report && !signal.aborted ? this.view(history) : undefined;
    });
  }

  /**
   * One compression of the current view: summary from the model, or (after a failure, when the
   * request cannot fit otherwise) a note that the middle was dropped. Undefined when there is no
   * new message to compress. Rejects when the summary call fails. `plan` overrides the protected
   * head and tail of the settings. `onCompaction` hears `started` before the summary call and
   * how it ended (`trigger` says who asked).
   */
  private async compress(
    history: readonly ChatMessage[],
    signal: AbortSignal,
    source: "model" | { failure: string },
    trigger: CompactionTrigger,
    plan: Pick<CompressionSettings, "protectFirstN" | "protectLastN"> = this.options.settings,
  ): Promise<CompressionReport | undefined> {
    const view = this.view(history);
    const bounds = planCompression(view, plan);
    const prefixLength = this.compacted?.prefix.length ?? 0;
    if (!bounds || bounds.tailStart <= prefixLength) return undefined;
    const resumeAt = (this.compacted?.resumeAt ?? 0) + (bounds.tailStart - prefixLength);
    const head = view.slice(0, bounds.headEnd);
    const middle = view.slice(bounds.headEnd, bounds.tailStart);
    const tail = view.slice(bounds.tailStart);

    const compactionId = newId();
    const tell = (event: CompactionEvent): void => {
      try {
        this.options.onCompaction?.(event);
      } catch (error) {
        log.warn(`compaction listener failed: ${errorMessage(error)}`);
      }
    };
    tell({ type: "compaction", compactionId, trigger, status: "started" });
    let summary: string;
    try {
      summary = source === "model" ? await this.summarize(middle, signal) : droppedNote(middle.length, source.failure);
    } catch (error) {
      tell(signal.aborted || isAbortError(error) ? { type: "compaction", compactionId, trigger, status: "cancelled" } : { type: "compaction", compactionId, trigger, status: "failed", error: errorMessage(error) });
      throw error;
    }
    const latestUser = lastIndexOf(view, (message) => userText(message) !== "");
    const text = summaryMessageText(summary, {
      preservedState: this.options.preservedState?.(),
      ...(latestUser >= bounds.headEnd && latestUser < bounds.tailStart ? { latestRequest: userText(view[latestUser] as ChatMessage) } : {}),
    });
    const { messages, consumed } = joinSummary(head, text, tail[0]);
    this.compacted = { prefix: messages, resumeAt: resumeAt + consumed, anchor: history[resumeAt + consumed - 1] };
    this.generation += 1;
    this.reported = undefined;

    const after = this.view(history);
    const beforeTokens = this.requestTokens(view);
    const afterTokens = this.requestTokens(after);
    const report: CompressionReport = {
      compressed: true,
      beforeMessages: view.length,
      afterMessages: after.length,
      beforeTokens,
      afterTokens,
      text: `${view.length} -> ${after.length} messages, ~${grouped(beforeTokens)} -> ~${grouped(afterTokens)} tokens`,
    };
    log.info(`context compressed: ${report.text}`);
    this.options.onCompressed?.(report);
    const { compressed: _compressed, ...counts } = report;
    tell({ type: "compaction", compactionId, trigger, status: "completed", ...counts, summary });
    return report;
  }

  private async summarize(middle: ChatMessage[], signal: AbortSignal): Promise<string> {
    const window = this.options.contextWindow();
    const targetTokens = summaryBudget(estimateMessagesTokens(middle));
    const maxInputChars = Math.min(160_000, Math.max(4_000, Math.floor(window * CHARS_PER_TOKEN * 0.5)));
    const request = buildSummaryRequest(middle, { targetTokens, maxInputChars });
    const text = (await this.options.summarize(request, signal, { maxTokens: Math.min(2 * targetTokens, 16_000) })).trim();
    if (signal.aborted) throw abortError();
    if (!text) throw new Error("the model returned an empty summary");
    return text;
  }

  private requestTokens(messages: readonly ChatMessage[]): number {
    return this.options.overheadTokens() + estimateMessagesTokens(messages);
  }

  /** Runs tasks one at a time, in call order (a forced compression never races a turn's). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function lastIndexOf<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index -= 1) if (test(items[index] as T)) return index;
  return -1;
}

function droppedNote(count: number, failure: string): string {
  return (
    `Summary unavailable: ${count} earlier messages were removed to fit the context window, and the model call ` +
    `that should have summarized them failed (${failure}). Re-read files or ask the user if you need details from them.`
  );
}

/**
 * Head + summary message + (first tail message), keeping roles alternating as Hermes does: the
 * summary is a user message after an assistant or tool message, else an assistant message; when
 * that role collides with the first kept message and flipping it would collide with the head,
 * the summary is merged into a copy of the first kept message instead (`consumed` = 1).
 */
function joinSummary(head: ChatMessage[], text: string, firstTail: ChatMessage | undefined): { messages: ChatMessage[]; consumed: 0 | 1 } {
  const previous = head.at(-1)?.role;
  const afterTurn = previous === "assistant" || previous === "tool" || previous === undefined;
  let role: "user" | "assistant" = afterTurn ? "user" : "assistant";
  if (firstTail?.role === role) {
    const flipped = role === "user" ? "assistant" : "user";
    const collides = flipped === previous || (flipped === "assistant" && previous === undefined);
    if (!collides) role = flipped;
    else return { messages: [...head, mergeInto(firstTail, text)], consumed: 1 };
  }
  return { messages: [...head, { role, content: text }], consumed: 0 };
}

function mergeInto(message: ChatMessage, summary: string): ChatMessage {
  const preface = `${PRIOR_CONTEXT_OPEN}\n${summary}\n${PRIOR_CONTEXT_CLOSE}`;
  if (message.role === "user") {
    return typeof message.content === "string"
      ? { ...message, content: `${preface}\n\n${message.content}` }
      : { ...message, content: [{ type: "text", text: preface }, ...message.content] };
  }
  if (message.role === "assistant") return { ...message, content: message.content ? `${preface}\n\n${message.content}` : preface };
  return message;
}
