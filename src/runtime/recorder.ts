import type { ToolOutcome } from "../agent/loop.js";
import type { ChatMessage } from "../llm/types.js";
import { errorMessage, isHermesError } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { describeSqliteFailure } from "../store/open.js";
import type { StateStore } from "../store/state-store.js";
import type { SessionMeta } from "../store/types.js";
import { NextAttempt } from "./next-attempt.js";

/** Tuning of a recorder; the defaults are what the agent runs with, tests shorten them. */
export interface RecorderOptions {
  /** How long one write attempt waits for another process's lock before giving way (ms). */
  attemptBusyMs?: number;
  /** How long `settle` waits for a locked database before reporting it (ms). */
  settleGraceMs?: number;
  /** Streamed text is stored at least this often while it arrives (ms)… */
  streamEveryMs?: number;
  /** …and whenever this many characters arrived since it was last stored. */
  streamEveryChars?: number;
}

const DEFAULTS: Required<RecorderOptions> = { attemptBusyMs: 20, settleGraceMs: 5000, streamEveryMs: 1000, streamEveryChars: 4096 };
/** Retry pauses: short while another process holds the lock, long after any other failure. */
const LOCKED_RETRY_MS = { first: 25, max: 1000 };
const FAILED_RETRY_MS = { first: 1000, max: 30_000 };
/** At most this many queued writes go into one transaction (a long backlog is stored in several). */
const MAX_BATCH = 100;
/** The last attempt before a session is dropped from memory waits this long for a lock (ms). */
const FINAL_ATTEMPT_BUSY_MS = 2000;

/**
 * One lock back-off per database shared by its sessions' recorders: while another process holds
 * the lock, one probe per interval costs the event loop, not one per session.
 */
const lockBackoff = new WeakMap<StateStore, { retryAt: number }>();

/** `finish_reason` of a partial answer stored while it streams; replaced when the answer lands. */
export const STREAMING_FINISH_REASON = "incomplete";

type Write =
  | { kind: "message"; meta: SessionMeta; message: ChatMessage; toolOutcome?: ToolOutcome }
  | { kind: "partial"; meta: SessionMeta; text: string }
  | { kind: "drop-partial" }
  | { kind: "usage"; usage: { input: number; output: number; reasoning: number; cost?: number } }
  | { kind: "title"; title: string }
  | { kind: "meta"; change: { model?: string; provider?: string; reasoningEffort?: string | null } }
  | { kind: "end"; reason: string };

/**
 * Writes one session to state.db as its turn goes, off the critical path: each message, the
 * streamed text of the answer in progress, title, usage. Writes queue in order; a message is
 * stored before the event loop moves on (a microtask: with what queued before it and the messages
 * appended in the same synchronous run), the rest together a moment later (one transaction per
 * event-loop turn); an attempt never blocks the event loop for more than
 * `attemptBusyMs`. Decision: an ordered in-memory queue retried with
 * short busy timeouts, not a worker thread — better-sqlite3 is synchronous either way, reads
 * never wait for writers under WAL, and a queue keeps "what is stored" in one place without
 * copying every message across threads.
 *
 * A failing store never fails the turn. A locked database is retried every 25 ms–1 s until it
 * clears; any other failure (read-only, disk full, corrupt, newer schema) is logged, reported by
 * `takeFailure`, and retried every 1–30 s and with each new write. Queued writes are never
 * dropped or reordered: once the store works again the session is stored whole and in order.
 *
 * Streamed text: the answer in progress is stored as an assistant message with finish reason
 * STREAMING_FINISH_REASON at most every `streamEveryMs` or `streamEveryChars`, so a crash keeps what
 * the user saw; the answer, when it lands, takes that row's place.
 *
 * Contract: no method throws; everything a write needs is captured when it is called.
 */
export class SessionRecorder {
  private readonly queue: Write[] = [];
  private readonly options: Required<RecorderOptions>;
  /** Database id of the stored partial answer, while there is one. */
  private partialRow: number | undefined;
  private streamed: { pieces: string[]; chars: number; storedChars: number; timer?: NodeJS.Timeout } | undefined;
  private readonly next = new NextAttempt(() => this.flush());
  private retryMs = 0;
  /** The last failed attempt: why, and whether it was only a lock (undefined while writes work). */
  private failure: { reason: string; locked: boolean } | undefined;
  private reportedFailure = false;
  private unreported: string | undefined;
  private readonly idle = new Set<() => void>();
  /** Set when the store can never be written (read-only, newer schema): nothing more is queued. */
  private refused = false;
  /** Writes the store refused as such (not a database failure), logged once and left out. */
  private readonly invalid = new WeakSet<Write>();

  constructor(
    private readonly store: StateStore,
    /** What the session row is written with; replaced by `switchModel`. */
    public meta: SessionMeta,
    options: RecorderOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Queues a message; a tool result's outcome is stored beside it for replay. An assistant message completes the streamed one. */
  append(message: ChatMessage, toolOutcome?: ToolOutcome): void {
    if (message.role === "assistant") this.stopStream();
    const meta = this.meta;
    this.push(toolOutcome ? { kind: "message", meta, message, toolOutcome } : { kind: "message", meta, message });
  }

  /**
   * A piece of the answer streaming now (`first`: it starts a new answer). The text so far is
   * stored as a partial answer once `streamEveryMs` passed since it started or was last stored,
   * or once `streamEveryChars` arrived since — or as much as is stored, when that is more, so a
   * long answer costs linear, not quadratic, rewriting (the time bound still holds).
   */
  streaming(piece: string, first: boolean): void {
    if (first || !this.streamed) {
      this.stopStream();
      this.streamed = { pieces: [], chars: 0, storedChars: 0 };
    }
    const streamed = this.streamed!;
    streamed.pieces.push(piece);
    streamed.chars += piece.length;
    if (streamed.chars - streamed.storedChars >= Math.max(this.options.streamEveryChars, streamed.storedChars)) {
      this.storeStreamed();
    } else if (!streamed.timer) {
      streamed.timer = setTimeout(() => this.storeStreamed(), this.options.streamEveryMs);
      streamed.timer.unref();
    }
  }

  /** The turn is over: a partial answer that no message completed is removed. */
  endTurn(): void {
    this.stopStream();
    this.push({ kind: "drop-partial" });
  }

  setTitle(title: string): void {
    this.push({ kind: "title", title });
  }

  /** Adds token counts and the cost in USD (`cost`, when known) to the session's totals. */
  addUsage(usage: { input: number; output: number; reasoning: number; cost?: number }): void {
    this.push({ kind: "usage", usage: { ...usage } });
  }

  /**
   * A model switch: later writes carry the new model, provider, base URL and system prompt (a
   * session row not written yet is created with them); a stored row gets the new model and
   * provider.
   */
  switchModel(change: { model: string; provider: string; baseUrl: string; systemPrompt: string }): void {
    const modelConfig = Object.freeze({ ...this.meta.modelConfig, base_url: change.baseUrl });
    this.meta = Object.freeze({ ...this.meta, model: change.model, provider: change.provider, systemPrompt: change.systemPrompt, modelConfig });
    this.push({ kind: "meta", change: { model: change.model, provider: change.provider } });
  }

  /**
   * The reasoning effort the user chose for the session (null: none, config.yaml decides): kept in
   * `model_config.reasoning_effort`, so a load, resume or fork gets it back; a session row not
   * written yet is created with it.
   */
  setReasoningEffort(effort: string | null): void {
    const { reasoning_effort: _old, ...rest } = this.meta.modelConfig;
    const modelConfig = Object.freeze(effort === null ? rest : { ...rest, reasoning_effort: effort });
    this.meta = Object.freeze({ ...this.meta, modelConfig });
    this.push({ kind: "meta", change: { reasoningEffort: effort } });
  }

  end(reason: string): void {
    this.push({ kind: "end", reason });
  }

  /**
   * Resolves once everything queued so far is stored, or an attempt failed for a reason other
   * than a lock, or `graceMs` passed with the database still locked (then `takeFailure` says so
   * and the queue keeps retrying). Never rejects.
   */
  settle(graceMs = this.options.settleGraceMs): Promise<void> {
    // A store that failed may work again (disk freed): one attempt now decides.
    if (this.queue.length > 0 && this.failure && !this.failure.locked) {
      this.flush();
    }
    if (this.queue.length === 0) return Promise.resolve();
    if (this.failure && !this.failure.locked) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.idle.delete(check);
        resolve();
      };
      const check = (): void => {
        if (this.queue.length === 0 || (this.failure && !this.failure.locked)) done();
      };
      const timer = setTimeout(() => {
        if (this.failure?.locked) this.report(this.failure.reason);
        done();
      }, graceMs);
      this.idle.add(check);
    });
  }

  /**
   * The session leaves memory: waits up to `graceMs` like `settle`, then makes one last attempt
   * (waiting up to 2 s for a lock); what still cannot be stored is logged as lost. Never rejects.
   */
  async close(graceMs: number): Promise<void> {
    await this.settle(graceMs);
    if (this.queue.length === 0 || this.refused) return;
    this.flush(FINAL_ATTEMPT_BUSY_MS);
    if (this.queue.length === 0) return;
    this.next.cancel();
    log.error(`${this.queue.length} write(s) of session ${this.meta.id} could not be saved and are lost: ${this.failure?.reason ?? "unknown reason"}`);
    this.queue.length = 0;
  }

  /** True while writes wait in the queue (stored later, or failing). */
  get pending(): boolean {
    return this.queue.length > 0;
  }

  /**
   * Why writes started failing since the last call (a sentence for the user), or undefined when
   * nothing new failed. A run of failures is reported once; after writes work again, a new
   * failure is reported again.
   */
  takeFailure(): string | undefined {
    const reason = this.unreported;
    this.unreported = undefined;
    return reason;
  }

  /** A sentence for the user when state.db was found damaged (once per store; see StateStore.takeDamage). */
  takeDamage(): string | undefined {
    return this.store.takeDamage();
  }

  private push(write: Write): void {
    if (this.refused) return;
    const last = this.queue.at(-1);
    if (write.kind === "partial" && last?.kind === "partial") this.queue[this.queue.length - 1] = write;
    else this.queue.push(write);
    // A message is stored before the event loop moves on (a crash keeps what the user saw): while
    // the store works, an attempt in a microtask, so the messages of one synchronous run (a batch's
    // tool results) share one transaction; the stdio writer sends what that run queued in a later
    // macrotask (at once only past 64K chars). The rest gathers for the next turn.
    if (write.kind === "message" && !this.failure) {
      this.next.now();
      return;
    }
    // A new write is a reason to try a failing store again now rather than at the next retry.
    if (!this.next.pending || (this.failure && !this.failure.locked)) this.next.after(0);
  }

  /** One attempt to store the queue (up to MAX_BATCH writes) in one transaction; replaces the pending one. */
  private flush(busyMs = this.options.attemptBusyMs): void {
    this.next.cancel();
    const gate = lockBackoff.get(this.store);
    const wait = gate ? gate.retryAt - Date.now() : 0;
    if (wait > 0 && busyMs === this.options.attemptBusyMs) {
      this.next.after(wait);
      return;
    }
    const batch = this.queue.slice(0, MAX_BATCH);
    if (batch.length === 0) return this.notifyIdle();
    let partialRow = this.partialRow;
    try {
      this.store.together(
        () => {
          for (const write of batch) partialRow = this.apply(write, partialRow);
        },
        { busyTimeoutMs: busyMs },
      );
      this.queue.splice(0, batch.length);
      this.partialRow = partialRow;
      if (this.failure) log.info(`state.db writes for session ${this.meta.id} work again`);
      this.failure = undefined;
      this.reportedFailure = false;
      this.retryMs = 0;
      lockBackoff.delete(this.store);
      // Past MAX_BATCH: queued messages keep their promise (stored before the loop moves on).
      if (this.queue.some((write) => write.kind === "message")) this.next.now();
      else if (this.queue.length > 0) this.next.after(0);
    } catch (error) {
      this.failed(error);
    }
    this.notifyIdle();
  }

  /** Applies one write inside the flush transaction; answers the partial answer's row after it. */
  private apply(write: Write, partialRow: number | undefined): number | undefined {
    const { store } = this;
    const { id } = this.meta;
    switch (write.kind) {
      case "message": {
        const role = write.message.role;
        // A partial answer no message completed (a turn that failed) must not end up after what follows it.
        if (partialRow !== undefined && (role === "user" || role === "system")) {
          store.deleteMessage(id, partialRow);
          partialRow = undefined;
        }
        const completes = role === "assistant" && partialRow !== undefined;
        if (!completes || !store.replaceMessage(id, partialRow!, write.message)) {
          this.skipInvalid(write, () => store.appendMessage(write.meta, write.message, write.toolOutcome));
        }
        return role === "assistant" ? undefined : partialRow;
      }
      case "partial": {
        const message: ChatMessage = { role: "assistant", content: write.text, finish_reason: STREAMING_FINISH_REASON };
        if (partialRow !== undefined && store.replaceMessage(id, partialRow, message)) return partialRow;
        return store.appendMessage(write.meta, message);
      }
      case "drop-partial":
        if (partialRow !== undefined) store.deleteMessage(id, partialRow);
        return undefined;
      case "usage":
        store.updateUsage(id, write.usage);
        return partialRow;
      case "title":
        store.setTitle(id, write.title);
        return partialRow;
      case "meta":
        store.updateSessionMeta(id, write.change);
        return partialRow;
      case "end":
        store.endSession(id, write.reason);
        return partialRow;
    }
  }

  /** A message the store refuses as such (not a database failure) is logged once and left out. */
  private skipInvalid(write: Write, store: () => unknown): void {
    try {
      store();
    } catch (error) {
      if (!isHermesError(error, "invalid_params")) throw error;
      if (this.invalid.has(write)) return;
      this.invalid.add(write);
      log.error(`could not save a message of session ${this.meta.id}; it is left out: ${errorMessage(error)}`);
    }
  }

  private failed(error: unknown): void {
    const locked = isHermesError(error) && error.data?.locked === true;
    if (isHermesError(error) && error.data?.permanent === true) {
      // Read-only or newer schema: no retry can succeed; the conversation lives in memory only.
      log.error(`state.db cannot be written for session ${this.meta.id}; nothing more is queued: ${errorMessage(error)}`);
      this.refused = true;
      this.queue.length = 0;
      this.failure = { reason: describeSqliteFailure(error), locked: false };
      this.report(this.failure.reason);
      return;
    }
    const reason = locked
      ? `state database ${this.store.path} is locked by another process (still retrying: the turn is saved once the lock is released)`
      : describeSqliteFailure(error);
    if (!this.failure || this.failure.locked !== locked) {
      const what = locked ? "is locked by another process; retrying" : "failed; the conversation continues in memory";
      log[locked ? "info" : "error"](`state.db for session ${this.meta.id} ${what}: ${errorMessage(error)}`);
    }
    this.failure = { reason, locked };
    if (!locked) this.report(reason);
    const backoff = locked ? LOCKED_RETRY_MS : FAILED_RETRY_MS;
    this.retryMs = this.retryMs < backoff.first ? backoff.first : Math.min(backoff.max, this.retryMs * 2);
    if (locked) {
      const gate = lockBackoff.get(this.store) ?? { retryAt: 0 };
      gate.retryAt = Math.max(gate.retryAt, Date.now() + this.retryMs);
      lockBackoff.set(this.store, gate);
    }
    this.next.after(this.retryMs);
  }

  private report(reason: string): void {
    if (this.reportedFailure) return;
    this.reportedFailure = true;
    this.unreported = reason;
  }

  private storeStreamed(): void {
    const streamed = this.streamed;
    if (!streamed) return;
    if (streamed.timer) clearTimeout(streamed.timer);
    streamed.timer = undefined;
    const text = streamed.pieces.join("");
    streamed.pieces = [text];
    streamed.storedChars = text.length;
    if (text.trim() !== "") this.push({ kind: "partial", meta: this.meta, text });
  }

  private stopStream(): void {
    if (this.streamed?.timer) clearTimeout(this.streamed.timer);
    this.streamed = undefined;
  }

  private notifyIdle(): void {
    for (const check of [...this.idle]) check();
  }
}
