import type { ToolOutcome } from "../agent/loop.js";
import type { ChatMessage } from "../llm/types.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { describeSqliteFailure } from "../store/open.js";
import type { StateStore } from "../store/state-store.js";
import type { SessionMeta } from "../store/types.js";

/**
 * Writes one session to state.db as its turn goes: each message as it lands, then title and
 * usage. A failing store never fails the turn: the error is logged (once until it recovers), the
 * conversation goes on in memory, and `takeFailure` gives the user-facing reason once per run of
 * failures, so the front end can tell the user their conversation is not being saved.
 */
export class SessionRecorder {
  private failing = false;
  private unreported: string | undefined;

  constructor(
    private readonly store: StateStore,
    /** What the session row is written with; replaced by `switchModel`. */
    public meta: SessionMeta,
  ) {}

  /** Writes a message; a tool result's outcome is stored beside it for replay. */
  append(message: ChatMessage, toolOutcome?: ToolOutcome): void {
    this.guard("save a message", () => this.store.appendMessage(this.meta, message, toolOutcome));
  }

  setTitle(title: string): void {
    this.guard("save the title", () => this.store.setTitle(this.meta.id, title));
  }

  addUsage(usage: { input: number; output: number; reasoning: number }): void {
    this.guard("save token usage", () => this.store.updateUsage(this.meta.id, usage));
  }

  /**
   * A model switch: later writes carry the new model, provider, base URL and system prompt (a
   * session row not written yet is created with them); a stored row gets the new model and
   * provider now.
   */
  switchModel(change: { model: string; provider: string; baseUrl: string; systemPrompt: string }): void {
    const modelConfig = Object.freeze({ ...this.meta.modelConfig, base_url: change.baseUrl });
    this.meta = Object.freeze({ ...this.meta, model: change.model, provider: change.provider, systemPrompt: change.systemPrompt, modelConfig });
    this.guard("save the model switch", () => this.store.updateSessionMeta(this.meta.id, { model: change.model, provider: change.provider }));
  }

  end(reason: string): void {
    this.guard("end the session", () => this.store.endSession(this.meta.id, reason));
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

  private guard(what: string, write: () => unknown): void {
    try {
      write();
      if (this.failing) log.info(`state.db writes for session ${this.meta.id} work again`);
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        log.error(`could not ${what} for session ${this.meta.id}; it continues in memory: ${errorMessage(error)}`);
        this.unreported = `could not ${what}: ${describeSqliteFailure(error)}`;
      }
      this.failing = true;
    }
  }
}
