import { methods, type AgentContext, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { log } from "../shared/logger.js";

/**
 * Sends one session's updates in order (the connection writes messages in the order they are
 * sent). `send` never throws and never blocks the caller; `flushed()` resolves once everything
 * sent so far has been written, so a prompt response can be held until its updates are out.
 */
export class UpdateSender {
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: AgentContext,
    private readonly sessionId: string,
  ) {}

  send(update: SessionUpdate): void {
    const params = { sessionId: this.sessionId, update };
    this.tail = this.client.notify(methods.client.session.update, params).catch((error: unknown) => {
      log.warn(`session/update ${update.sessionUpdate} for ${this.sessionId} was not delivered`, error);
    });
  }

  flushed(): Promise<void> {
    return this.tail;
  }
}
