import type { PromptRequest, PromptResponse, Usage } from "@agentclientprotocol/sdk/unstable";
import type { TokenUsage } from "../llm/types.js";
import { toSessionUpdates } from "./event-bridge.js";
import { abandonedToolUpdate } from "./tool-render.js";
import { promptText } from "./prompt-content.js";
import type { SessionManager } from "./session-manager.js";

/**
 * `session/prompt`: runs one turn and answers exactly once, after every update of the turn
 * has been written and every tool call it opened has been closed (as failed when it never finished). `requestSignal` (the client's `$/cancel_request`) cancels like `session/cancel`.
 * Unknown session → -32002 (thrown as HermesError).
 */
export async function handlePrompt(
  sessions: SessionManager,
  params: PromptRequest,
  requestSignal: AbortSignal,
): Promise<PromptResponse> {
  const live = sessions.get(params.sessionId);
  const text = promptText(params.prompt);
  if (!text) return { stopReason: "end_turn" };

  return live.runTurn(async (signal) => {
    const onRequestAbort = (): void => live.cancel();
    requestSignal.addEventListener("abort", onRequestAbort, { once: true });
    try {
      const open = new Set<string>();
      const result = await live.session.prompt(text, {
        signal,
        asker: live.permissions,
        emit: (event) => {
          if (event.type === "tool_start") open.add(event.callId);
          if (event.type === "tool_end") open.delete(event.callId);
          for (const update of toSessionUpdates(event)) live.updates.send(update);
        },
      });
      for (const callId of open) live.updates.send(abandonedToolUpdate(callId));
      if (result.title) live.updates.send({ sessionUpdate: "session_info_update", title: result.title, updatedAt: new Date().toISOString() });
      await live.updates.flushed();
      return { stopReason: result.stopReason, ...(result.usage ? { usage: toAcpUsage(result.usage) } : {}) };
    } finally {
      requestSignal.removeEventListener("abort", onRequestAbort);
    }
  });
}

export function toAcpUsage(usage: TokenUsage): Usage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    ...(usage.reasoningTokens !== undefined ? { thoughtTokens: usage.reasoningTokens } : {}),
    ...(usage.cachedTokens !== undefined ? { cachedReadTokens: usage.cachedTokens } : {}),
  };
}
