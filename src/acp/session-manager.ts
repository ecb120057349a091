import type { SlashInvocation } from "./commands/types.js";
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import type { UserContentPart } from "../llm/types.js";
import { joinCorrections, type TurnRedirect } from "../agent/redirect.js";
import type { AgentSession } from "../runtime/session.js";
import { HermesError } from "../shared/errors.js";
import type { ToolPorts } from "../tools/ports.js";
import { editorPorts } from "./editor-ports.js";
import { PermissionBridge } from "./permission-bridge.js";
import { UpdateSender } from "./update-sender.js";

/** A prompt waiting for the session: what the model gets, and its text (for the echo and `/` commands). */
export interface PendingPrompt {
  content: string | UserContentPart[];
  text: string;
  /** Every block was text: slash commands and the interrupt rewrite apply. */
  textOnly: boolean;
  /** The `/command` it is, parsed once when the prompt arrived (text-only prompts only). */
  slash?: SlashInvocation;
}

/**
 * The right to run on a session: one turn or exclusive command at a time, then the queue. Got
 * from `LiveSession.acquire`; `release()` must be called exactly once when the holder is done
 * (extra calls are ignored).
 */
export interface SessionHold {
  /** Fires on `session/cancel` (or close); the holder stops and does not drain the queue. */
  readonly signal: AbortSignal;
  /**
   * Marks a model turn as running with `text` as its prompt (steering and queueing now apply to
   * it; a cancel keeps `text` for the interrupt rewrite), or, with undefined, that it ended.
   */
  setTurn(text: string | undefined): void;
  /**
   * The running turn's loop has ended (it takes no more corrections): a plain prompt now queues
   * instead of redirecting, until the next `setTurn(text)`.
   */
  endCorrections(): void;
  release(): void;
}

interface Activity {
  controller: AbortController;
  turnText: string | undefined;
  /** The turn's loop still takes corrections (`redirect`). */
  redirectable: boolean;
  /** Fires when a correction arrives during the model call in flight (see `TurnRedirect.watch`). */
  call: AbortController | undefined;
  done: Promise<void>;
  finish: () => void;
}

/**
 * A session the adapter is serving: the runtime session, its update channel, and who runs on it.
 *
 * At most one holder (a prompt's turns, or a command that changes the session) runs at a time.
 * A plain prompt arriving while a model turn runs redirects it (`redirect`, Hermes' behaviour);
 * other prompts arriving meanwhile (`/queue`, attachments, or while a command holds the session)
 * wait in `queue` and run when the holder finishes (the holder drains them). A cancel stops the
 * holder, keeps the cancelled prompt for the next prompt's interrupt rewrite, and leaves the
 * queue for after the next turn.
 */
export class LiveSession {
  readonly updates: UpdateSender;
  readonly permissions: PermissionBridge;
  private activity: Activity | undefined;
  private readonly queued: PendingPrompt[] = [];
  private steering: string[] = [];
  private corrections: string[] = [];
  private interrupted: string | undefined;

  constructor(
    readonly session: AgentSession,
    private readonly client: AgentContext,
    private readonly clientCapabilities: () => ClientCapabilities = () => ({}),
    private readonly modelSwitcher?: ModelSwitcher,
  ) {
    this.updates = new UpdateSender(client, session.id);
    this.permissions = new PermissionBridge(client, session.id, () => session.approvalTimeoutMs);
  }

  /**
   * The ports a turn gets from the editor (its buffers and terminals, as the client advertised
   * them in `initialize`; none when it advertised nothing), bound to the turn's `signal`.
   */
  editorPorts(signal: AbortSignal): ToolPorts {
    return editorPorts(this.client, this.clientCapabilities(), this.session.id, signal);
  }

  /**
   * Switches the session's model (`provider:model`, or a model on the current provider) from its
   * next turn; answers what it now uses. Only while holding the session. Rejects with the
   * switcher's error (invalid value, unusable provider), the session unchanged; or when this
   * connection cannot switch models.
   */
  async switchModel(value: string): Promise<{ model: string; provider: string }> {
    if (!this.modelSwitcher) throw new Error("switching models is not available here");
    const resolved = await this.modelSwitcher(this, value);
    return { model: resolved.model, provider: resolved.provider };
  }

  /** Something holds the session (a turn, a cancelled turn still unwinding, or a command). */
  get isRunning(): boolean {
    return this.activity !== undefined;
  }

  /** A model turn is running and has not been cancelled: `/steer` reaches it, prompts queue behind it. */
  get turnActive(): boolean {
    const activity = this.activity;
    return activity?.turnText !== undefined && !activity.controller.signal.aborted;
  }

  /** Bumped by every cancel; a waiting prompt compares it to decide whether it was cancelled. */
  private cancelEpoch = 0;

  /** How many cancels this session has had: taken when a prompt arrives, handed to `acquire`. */
  get cancelMark(): number {
    return this.cancelEpoch;
  }

  get queueLength(): number {
    return this.queued.length;
  }

  /**
   * Takes the session for a holder. Waits while a cancelled holder is still unwinding; answers
   * undefined when a live holder has it (the caller queues or refuses instead). The hold starts
   * cancelled when a `session/cancel` came after `since` (`cancelMark` when the prompt arrived;
   * default now), however long the prompt took to get here. Never throws.
   */
  async acquire(since: number = this.cancelEpoch): Promise<SessionHold | undefined> {
    const epoch = since;
    for (;;) {
      const current = this.activity;
      if (!current) break;
      if (!current.controller.signal.aborted) return undefined;
      await current.done;
    }
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const activity: Activity = { controller: new AbortController(), turnText: undefined, redirectable: false, call: undefined, done, finish };
    // A `session/cancel` that arrived while this prompt waited cancels it too.
    if (this.cancelEpoch !== epoch) activity.controller.abort();
    this.activity = activity;
    return {
      signal: activity.controller.signal,
      setTurn: (text) => {
        activity.turnText = text;
        activity.redirectable = text !== undefined;
        activity.call = undefined;
      },
      endCorrections: () => {
        activity.redirectable = false;
        activity.call = undefined;
      },
      release: () => {
        if (this.activity !== activity) return;
        this.activity = undefined;
        activity.finish();
      },
    };
  }

  /** Adds a prompt to run after the current (or next) turn; answers how many are queued. */
  enqueue(prompt: PendingPrompt, options: { first?: boolean } = {}): number {
    if (options.first) this.queued.unshift(prompt);
    else this.queued.push(prompt);
    return this.queued.length;
  }

  dequeue(): PendingPrompt | undefined {
    return this.queued.shift();
  }

  /** Guidance for the running turn; the loop takes it after its current tool batch (`takeSteering`). */
  steer(text: string): void {
    this.steering.push(text);
  }

  /**
   * The guidance sent since the last take, joined, or undefined; clears it. Corrections still
   * waiting come with it: during a tool batch a redirect becomes guidance (Hermes never stops a
   * tool to deliver one), and what the turn never took runs as the next prompt.
   */
  takeSteering(): string | undefined {
    const corrections = this.takeCorrections();
    const parts = corrections ? [...this.steering, corrections] : this.steering;
    this.steering = [];
    return parts.length === 0 ? undefined : parts.join("\n");
  }

  /**
   * Hermes' redirect: hands `text` to the running model turn as the user's correction and stops
   * its model call in flight, if any, so the next call is made with it (see `TurnRedirect`).
   * False, changing nothing, when no turn takes corrections now (none running, cancelled, its
   * loop over, or a command holds the session): the caller queues the prompt instead.
   */
  redirect(text: string): boolean {
    const activity = this.activity;
    if (!activity || !this.turnActive || !activity.redirectable || !text.trim()) return false;
    this.corrections.push(text.trim());
    activity.call?.abort();
    return true;
  }

  /** The running turn's side of `redirect`, for the agent loop. */
  turnRedirect(): TurnRedirect {
    return {
      watch: () => {
        const call = new AbortController();
        const activity = this.activity;
        if (activity) activity.call = call;
        if (this.corrections.length > 0) call.abort();
        return call.signal;
      },
      take: () => this.takeCorrections(),
    };
  }

  private takeCorrections(): string | undefined {
    const text = joinCorrections(this.corrections);
    this.corrections = [];
    return text;
  }

  /** The prompt of the last cancelled turn, once: the next prompt carries it. */
  takeInterrupted(): string | undefined {
    const text = this.interrupted;
    this.interrupted = undefined;
    return text;
  }

  /** Forgets the cancelled prompt (the conversation it belonged to was cleared). */
  clearInterrupted(): void {
    this.interrupted = undefined;
  }

  /**
   * Cancels the holder, if any: a running turn stops and its prompt is kept for the interrupt
   * rewrite. Prompts still waiting for the session when it comes are cancelled as they get it.
   * Idempotent for the running turn; a no-op for prompts that arrive later.
   */
  cancel(): void {
    this.cancelEpoch += 1;
    const activity = this.activity;
    if (!activity || activity.controller.signal.aborted) return;
    if (activity.turnText !== undefined) this.interrupted = activity.turnText;
    activity.controller.abort();
  }
}

/** Switches a session to another model (the runtime's `switchModel`). */
export type ModelSwitcher = (live: LiveSession, value: string) => Promise<{ model: string; provider: string }>;

/** The sessions of one connection, by id. */
export class SessionManager {
  private readonly sessions = new Map<string, LiveSession>();

  /** `switchModel`, when given, serves `/model <name>` for every session. */
  constructor(private readonly options: { switchModel?: ModelSwitcher } = {}) {}

  /** What the client advertised in `initialize` (fs, terminal…); empty until then. */
  clientCapabilities: ClientCapabilities = {};

  add(session: AgentSession, client: AgentContext): LiveSession {
    const live = new LiveSession(session, client, () => this.clientCapabilities, this.options.switchModel);
    this.sessions.set(session.id, live);
    // a generated title arrives after the turn that named the session (see session-title.ts)
    session.onTitleChange((title) => live.updates.send({ sessionUpdate: "session_info_update", title, updatedAt: new Date().toISOString() }));
    return live;
  }

  /** The session, or HermesError `session_not_found` (ACP -32002). */
  get(sessionId: string): LiveSession {
    const live = this.sessions.get(sessionId);
    if (!live) throw new HermesError("session_not_found", `Session not found: ${sessionId}`, { sessionId });
    return live;
  }

  find(sessionId: string): LiveSession | undefined {
    return this.sessions.get(sessionId);
  }

  /**
   * Cancels the session's turn, releases its tools and forgets it (history stays in state.db;
   * with `endReason` the session is also marked ended there). False when it was not live.
   */
  async close(sessionId: string, endReason?: string): Promise<boolean> {
    const live = this.sessions.get(sessionId);
    if (!live) return false;
    this.sessions.delete(sessionId);
    live.cancel();
    await live.session.dispose();
    if (endReason) live.session.end(endReason);
    return true;
  }

  /** Cancels every running turn; the sessions stay live (the input has ended, answers are still going out). Never throws. */
  cancelAll(): void {
    for (const live of this.sessions.values()) live.cancel();
  }

  /** Cancels every running turn and releases every session's tools (connection closing). Never throws. */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const live of all) live.cancel();
    await Promise.allSettled(all.map((live) => live.session.dispose()));
  }
}
