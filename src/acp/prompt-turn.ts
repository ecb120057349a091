import type { Usage } from "@agentclientprotocol/sdk/unstable";
import type { TurnResult } from "../agent/loop.js";
import type { TokenUsage, UserContentPart } from "../llm/types.js";
import { toSessionUpdates } from "./event-bridge.js";
import type { LiveSession, PendingPrompt, SessionHold } from "./session-manager.js";
import { abandonedToolUpdate } from "./tool-render.js";
import { newId } from "../shared/ids.js";
import { parseSlashCommand } from "./commands/registry.js";

/** How a prompt sent after a cancel carries the cancelled one (Hermes' wording). */
export const INTERRUPT_GUIDANCE = "User correction/guidance after interrupt:";

/** `content` preceded by the cancelled prompt `interrupted`, as one user message. Pure. */
export function withInterrupted(content: string | UserContentPart[], interrupted: string): string | UserContentPart[] {
  if (typeof content === "string") return `${interrupted}\n\n${INTERRUPT_GUIDANCE} ${content}`;
  return [{ type: "text", text: `${interrupted}\n\n${INTERRUPT_GUIDANCE}` }, ...content];
}

/**
 * Runs one model turn for `prompt` on a held session; resolves once every update of the turn
 * has been sent and every tool call it opened has been closed (as failed when it never
 * finished). After a cancel, the first prompt carries the cancelled one (`withInterrupted`).
 * `/steer` guidance reaches the turn after each tool batch; a redirect (`LiveSession.redirect`)
 * stops the model call in flight and joins the next one as the user's message, or, during a tool
 * batch, joins it as guidance. Once the loop has ended the turn it takes no more corrections;
 * guidance or corrections the turn never took are queued to run next, so nothing the user sent
 * is lost. Never rejects for a failed turn (see `AgentSession.prompt`).
 */
export async function runPromptTurn(live: LiveSession, hold: SessionHold, prompt: PendingPrompt): Promise<TurnResult> {
  const interrupted = live.takeInterrupted();
  const content = interrupted ? withInterrupted(prompt.content, interrupted) : prompt.content;
  hold.setTurn(interrupted ? `${interrupted}\n\n${INTERRUPT_GUIDANCE} ${prompt.text}` : prompt.text);
  const open = new Set<string>();
  try {
    const result = await live.session.prompt(content, {
      signal: hold.signal,
      asker: live.permissions,
      ports: {
        ...live.editorPorts(hold.signal),
        notifyUser: (text) => live.updates.send({ sessionUpdate: "agent_message_chunk", messageId: newId(), content: { type: "text", text: `${text}\n\n` } }),
      },
      takeSteering: () => live.takeSteering(),
      redirect: live.turnRedirect(),
      emit: (event) => {
        if (event.type === "turn_end") hold.endCorrections();
        if (event.type === "tool_start") open.add(event.callId);
        if (event.type === "tool_end") open.delete(event.callId);
        for (const update of toSessionUpdates(event)) live.updates.send(update);
      },
    });
    if (result.title) live.updates.send({ sessionUpdate: "session_info_update", title: result.title, updatedAt: new Date().toISOString() });
    for (const warning of [result.saveError && saveWarning(result.saveError), result.storeDamage && `⚠ ${result.storeDamage}.`]) {
      if (warning) live.updates.send({ sessionUpdate: "agent_message_chunk", messageId: newId(), content: { type: "text", text: `\n\n${warning}` } });
    }
    return result;
  } finally {
    for (const callId of open) live.updates.send(abandonedToolUpdate(callId));
    hold.setTurn(undefined);
    const unseen = live.takeSteering();
    if (unseen) {
      const slash = parseSlashCommand(unseen);
      live.enqueue({ content: unseen, text: unseen, textOnly: true, ...(slash ? { slash } : {}) }, { first: true });
    }
  }
}

/** What the user is told when the conversation could not be saved (the turn itself went on). */
export function saveWarning(reason: string): string {
  return `⚠ This conversation is not being saved to state.db: ${reason}. What was said here lives only in this window until saving works again.`;
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
