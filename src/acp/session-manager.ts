import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import type { AgentSession } from "../runtime/session.js";
import { HermesError } from "../shared/errors.js";
import { PermissionBridge } from "./permission-bridge.js";
import { UpdateSender } from "./update-sender.js";

/** A session the adapter is serving: the runtime session, its update channel, its running turn. */
export class LiveSession {
  readonly updates: UpdateSender;
  readonly permissions: PermissionBridge;
  private running: AbortController | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly session: AgentSession,
    client: AgentContext,
  ) {
    this.updates = new UpdateSender(client, session.id);
    this.permissions = new PermissionBridge(client, session.id, () => session.approvalTimeoutMs);
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /**
   * Runs `turn` after every earlier turn of this session has finished, with an AbortSignal that
   * `cancel()` fires. Turns never overlap, so history is only ever appended by one turn at a time.
   */
  runTurn<T>(turn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      const controller = new AbortController();
      this.running = controller;
      try {
        return await turn(controller.signal);
      } finally {
        this.running = undefined;
      }
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Cancels the running turn, if any. Idempotent; a no-op when idle. */
  cancel(): void {
    this.running?.abort();
  }
}

/** The sessions of one connection, by id. */
export class SessionManager {
  private readonly sessions = new Map<string, LiveSession>();

  add(session: AgentSession, client: AgentContext): LiveSession {
    const live = new LiveSession(session, client);
    this.sessions.set(session.id, live);
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

  /** Cancels every running turn and releases every session's tools (connection closing). Never throws. */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const live of all) live.cancel();
    await Promise.allSettled(all.map((live) => live.session.dispose()));
  }
}
