import { methods, type AgentContext, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { log } from "../shared/logger.js";

/** Updates of a run (`sendAll`) handed to the connection before the run waits for them to be written. */
const RUN_SLICE = 256;

/**
 * Sends one session's updates in order (the connection writes messages in the order they are
 * sent). `send` never throws and never blocks the caller; `flushed()` resolves once everything
 * sent so far has been written, so a prompt response can be held until its updates are out.
 */
export class UpdateSender {
  private tail: Promise<void> = Promise.resolve();
  /** While a run (`sendAll`) is in progress: what was sent meanwhile, sent after the run's last update. */
  private held: SessionUpdate[] | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: AgentContext,
    private readonly sessionId: string,
  ) {}

  send(update: SessionUpdate): void {
    if (this.held) this.held.push(update);
    else this.deliver(update);
  }

  /**
   * Sends `updates` in order as one run (a history replay): nothing else sent for the session in
   * the meantime comes between them; such updates follow the run's last one, in the order they
   * were sent. The iterable is drawn RUN_SLICE updates at a time, each slice written before the
   * next is drawn, so a long run is built, serialized and written as it goes instead of being
   * held in memory whole. Resolves once the run (and what was held) is written; rejects when the
   * iterable throws, after sending what it gave and what was held. A run started during a run
   * joins it: its updates are held like any other.
   */
  sendAll(updates: Iterable<SessionUpdate>): Promise<void> {
    if (this.held) {
      for (const update of updates) this.held.push(update);
      return this.flushed();
    }
    const held: SessionUpdate[] = [];
    this.held = held;
    const running = this.run(updates, held);
    // A run that never waited is over already.
    if (this.held === held) this.running = running;
    return running;
  }

  flushed(): Promise<void> {
    const running = this.running;
    if (!running) return this.tail;
    const afterRun = (): Promise<void> => this.flushed();
    return running.then(afterRun, afterRun);
  }

  private async run(updates: Iterable<SessionUpdate>, held: SessionUpdate[]): Promise<void> {
    try {
      let sent = 0;
      for (const update of updates) {
        this.deliver(update);
        if (++sent % RUN_SLICE === 0) await this.tail;
      }
    } finally {
      this.held = undefined;
      this.running = undefined;
      for (const update of held) this.deliver(update);
    }
    await this.tail;
  }

  private deliver(update: SessionUpdate): void {
    const params = { sessionId: this.sessionId, update };
    this.tail = this.client.notify(methods.client.session.update, params).catch((error: unknown) => {
      log.warn(`session/update ${update.sessionUpdate} for ${this.sessionId} was not delivered`, error);
    });
  }
}
