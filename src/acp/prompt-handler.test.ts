import type { AgentContext, PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import type { AgentSession } from "../runtime/session.js";
import { handlePrompt } from "./prompt-handler.js";
import { LiveSession, SessionManager } from "./session-manager.js";

/**
 * The connection's side of `session/update`: each notify is written at once, or, while `hold` is
 * set, waits until `release()` (a slow client reading its input).
 */
function slowClient() {
  const pending: Array<() => void> = [];
  const client = {
    hold: false,
    pending,
    notify: () => (client.hold ? new Promise<void>((resolve) => pending.push(resolve)) : Promise.resolve()),
    release: () => {
      client.hold = false;
      for (const resolve of pending.splice(0)) resolve();
    },
  };
  return client;
}

/** A session whose turns answer at once and record what they were asked. */
function recordingSession(onPrompt: (content: unknown) => void): AgentSession {
  const session = {
    id: "sess-1",
    cwd: process.cwd(),
    costUsd: 0,
    contextUsage: () => ({ used: 1, size: 100 }),
    prompt: async (content: unknown) => {
      onPrompt(content);
      return { stopReason: "end_turn", usage: undefined };
    },
  };
  return session as unknown as AgentSession;
}

const until = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
};

const text = (value: string) => [{ type: "text" as const, text: value }];

describe("handlePrompt at the end of a turn", () => {
  it("runs a prompt that was queued while the finished turn's last updates were still being written", async () => {
    const client = slowClient();
    const asked: unknown[] = [];
    const session = recordingSession((content) => {
      asked.push(content);
      // The first turn's last updates (usage_update) reach a client that is slow to read them.
      if (asked.length === 1) client.hold = true;
    });
    const sessions = new SessionManager();
    const live: LiveSession = sessions.add(Object.assign(session, { onTitleChange: () => undefined }), client as unknown as AgentContext);

    const first = handlePrompt(sessions, { sessionId: "sess-1", prompt: text("first") }, new AbortController().signal);
    await until(() => client.pending.length > 0);
    const second = handlePrompt(sessions, { sessionId: "sess-1", prompt: text("second") }, new AbortController().signal);
    await until(() => live.queueLength === 1);
    client.release();

    const answers: PromptResponse[] = await Promise.all([first, second]);
    expect(answers.map((answer) => answer.stopReason)).toEqual(["end_turn", "end_turn"]);
    // Queued prompts run after the turn they waited for, not after some later prompt.
    expect(asked).toEqual(["first", "second"]);
    expect(live.queueLength).toBe(0);
    expect(live.isRunning).toBe(false);
  });
});
