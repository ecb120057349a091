/**
 * A session's title: derived from the first prompt at once (it cannot fail), then upgraded by
 * one auxiliary-model call (`auxiliary.title`, else the session's model) after the first
 * exchange, off the critical path — the derived title stays until the generated one arrives, and
 * stays for good when the call fails or its reply is not a title. Hermes' provisional "Friendly
 * greeting" is replaced by the next turn's attempt.
 */
import type { ChatMessage } from "../llm/types.js";
import { contentText } from "../shared/content-text.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import type { AuxiliaryModelPort } from "../tools/ports.js";
import { parseGeneratedTitle, TITLE_MAX_TOKENS, titleFromPrompt, titleRequest } from "./title.js";

const PROVISIONAL = "friendly greeting";

export interface SessionTitleInput {
  /** The stored title of a restored session; a session that has one is never re-titled. */
  initial: string | null;
  /** Generates titles when set; undefined keeps derived titles. */
  auxiliaryModel?: AuxiliaryModelPort;
  /** Stores a new title (state.db). Must not throw. */
  store: (title: string) => void;
}

export class SessionTitle {
  private title: string | null;
  private generated = false;
  private upgrading: Promise<void> | undefined;
  private readonly listeners = new Set<(title: string) => void>();
  private readonly abort = new AbortController();

  constructor(private readonly input: SessionTitleInput) {
    this.title = input.initial;
    this.generated = input.initial !== null;
  }

  get current(): string | null {
    return this.title;
  }

  /**
   * Called after each turn with the whole history: answers the derived title when this turn gave
   * the session its first one (stored already), and starts the generated title when one is due.
   * Never throws.
   */
  afterTurn(history: readonly ChatMessage[]): string | undefined {
    let derived: string | undefined;
    const firstUser = history.find((message) => message.role === "user");
    if (this.title === null && firstUser) {
      derived = titleFromPrompt(contentText(firstUser.content, { images: "omit", separator: " " })) || undefined;
      if (derived) this.set(derived, false);
    }
    if (!this.generated && !this.upgrading && this.input.auxiliaryModel && !this.abort.signal.aborted) {
      const exchange = lastExchange(history);
      if (exchange) {
        this.upgrading = this.upgrade(this.input.auxiliaryModel, exchange.user, exchange.answer).finally(() => (this.upgrading = undefined));
      }
    }
    return derived;
  }

  /** Calls `listener` with each later (generated) title; answers the unsubscribe. */
  onChange(listener: (title: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once no title call is running. Never rejects. */
  idle(): Promise<void> {
    return this.upgrading ?? Promise.resolve();
  }

  /** Stops a running title call; no title changes after this. */
  close(): void {
    this.abort.abort();
    this.listeners.clear();
  }

  private async upgrade(port: AuxiliaryModelPort, user: string, answer: string): Promise<void> {
    let reply: string;
    try {
      reply = await port.complete("title", titleRequest(user, answer), { signal: this.abort.signal, maxTokens: TITLE_MAX_TOKENS });
    } catch (error) {
      if (!this.abort.signal.aborted) log.info(`session title generation failed; keeping "${this.title ?? ""}": ${errorMessage(error)}`);
      // one attempt per session: a failing title model is not asked again every turn
      this.generated = true;
      return;
    }
    if (this.abort.signal.aborted) return;
    const title = parseGeneratedTitle(reply);
    if (!title) {
      log.info("the title model's reply was not a title; keeping the derived one");
      this.generated = true;
      return;
    }
    this.generated = title.toLowerCase() !== PROVISIONAL;
    if (title === this.title) return;
    this.set(title, true);
  }

  private set(title: string, announce: boolean): void {
    this.title = title;
    this.input.store(title);
    if (!announce) return;
    for (const listener of this.listeners) {
      try {
        listener(title);
      } catch (error) {
        log.warn(`title listener failed: ${errorMessage(error)}`);
      }
    }
  }
}

/** The last user message's text and the answer that followed it, or undefined when there is no user text. */
function lastExchange(history: readonly ChatMessage[]): { user: string; answer: string } | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role !== "user") continue;
    const user = contentText(message.content, { images: "omit", separator: " " }).trim();
    if (!user) return undefined;
    const answer = history
      .slice(index + 1)
      .filter((later) => later.role === "assistant" && typeof later.content === "string")
      .map((later) => (later as { content: string }).content)
      .join("\n");
    return { user, answer };
  }
  return undefined;
}
