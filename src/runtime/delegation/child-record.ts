import type { ToolOutcome } from "../../agent/loop.js";
import type { ChatMessage } from "../../llm/types.js";
import { SessionRecorder } from "../recorder.js";
import { titleFromPrompt } from "../title.js";
import type { DelegationParent } from "./types.js";

/** How long a finished child waits for its queued writes (a locked state.db) before giving up on them. */
const CHILD_SETTLE_MS = 1500;

/**
 * A child's stored session: source `subagent`, `parent_session_id` = the delegating session, so
 * it stays out of `session/list`, search and browsing, and is exported with its parent. Writes go
 * through its own SessionRecorder (queued, never blocking); nothing is written when the parent
 * has no store. No method throws.
 */
export class ChildRecord {
  private readonly recorder: SessionRecorder | undefined;
  private readonly goal: string;

  constructor(
    parent: DelegationParent,
    child: { id: string; model: string; provider: string; baseUrl?: string; systemPrompt: string; goal: string },
  ) {
    this.goal = child.goal;
    if (!parent.store) return;
    const meta = parent.store.createSession({
      id: child.id,
      cwd: parent.cwd,
      model: child.model,
      provider: child.provider,
      systemPrompt: child.systemPrompt,
      source: "subagent",
      parentSessionId: parent.id,
      modelConfig: child.baseUrl ? { base_url: child.baseUrl } : {},
    });
    this.recorder = new SessionRecorder(parent.store, meta);
  }

  /** Queues a message of the child (see SessionRecorder.append). */
  append(message: ChatMessage, outcome?: ToolOutcome): void {
    this.recorder?.append(message, outcome);
  }

  /** Stores `messages` in order (an ACP child's prompt and answer). */
  appendAll(messages: readonly ChatMessage[]): void {
    for (const message of messages) this.append(message);
  }

  /** Titles the session after its goal, adds its usage, and lets it go (waiting a little for a locked store). */
  async finish(usage?: { inputTokens: number; outputTokens: number; reasoningTokens?: number }): Promise<void> {
    const recorder = this.recorder;
    if (!recorder) return;
    const title = titleFromPrompt(this.goal);
    if (title) recorder.setTitle(title);
    if (usage) recorder.addUsage({ input: usage.inputTokens, output: usage.outputTokens, reasoning: usage.reasoningTokens ?? 0 });
    recorder.endTurn();
    await recorder.close(CHILD_SETTLE_MS);
  }
}
