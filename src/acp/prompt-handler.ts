import type { ContentBlock, PromptRequest, PromptResponse, StopReason } from "@agentclientprotocol/sdk/unstable";
import type { TokenUsage } from "../llm/types.js";
import { addUsage } from "../agent/usage.js";
import { newId } from "../shared/ids.js";
import { COMMANDS, parseSlashCommand, runCommand, type SlashInvocation } from "./commands/registry.js";
import { queuedReply } from "./commands/queue.js";
import type { CommandContext } from "./commands/types.js";
import { promptContent } from "./prompt-content.js";
import { runPromptTurn, toAcpUsage } from "./prompt-turn.js";
import type { LiveSession, PendingPrompt, SessionHold, SessionManager } from "./session-manager.js";
import { sendUsage } from "./session-status.js";

export { toAcpUsage } from "./prompt-turn.js";

/**
 * `session/prompt`. Unknown session → -32002 (HermesError). The answer comes once, after every
 * update of the work it covers has been written:
 * - a known `/command` (text-only prompt) is answered locally with an `agent_message_chunk`, then
 *   a `usage_update` (`end_turn`, no model call; Hermes' order); one that changes the session
 *   (`/reset`, `/compress`, `/model <name>`) is refused while a turn runs, and otherwise holds the
 *   session like a turn;
 * - while a model turn runs, a plain text prompt redirects it (Hermes): the reply is "Redirected
 *   the active turn with your correction." and `end_turn` at once, and the correction joins the
 *   turn's next model call (see `LiveSession.redirect`); any other prompt (attachments, `/queue`,
 *   or while the turn is ending or a command holds the session) is queued: the reply is "Queued
 *   for the next turn. (N queued)" and `end_turn` at once. After a `session/cancel` no turn is
 *   running, so the next prompt runs as a fresh turn carrying the cancelled one (Zed's "Send now");
 * - otherwise the prompt runs, then every queued prompt, each announced by a `user_message_chunk`
 *   echo, and the answer (stop reason of the last turn, usage summed) comes after the last one.
 *   A cancel (`session/cancel`, or `$/cancel_request` of this request) stops the running turn and
 *   the draining: the answer is `cancelled`, and what is still queued runs after the next turn.
 */
export async function handlePrompt(sessions: SessionManager, params: PromptRequest, requestSignal: AbortSignal): Promise<PromptResponse> {
  const live = sessions.get(params.sessionId);
  // A `session/cancel` right behind this prompt (even in the same write) cancels it, though it is
  // handled while the attachments below are still being read.
  const arrived = live.cancelMark;
  const prompt = await pendingPrompt(params.prompt, live.session.cwd);
  if (!prompt) return { stopReason: "end_turn" };
  const slash = prompt.slash;
  if (!slash) return submit(live, prompt, requestSignal, arrived);
  if (slash.command.exclusive?.(slash.args)) {
    const busy = `/${slash.command.name} cannot run while a turn is running; wait for it to finish, or cancel it first.`;
    return live.turnActive ? commandReply(live, busy) : submit(live, prompt, requestSignal, arrived, busy);
  }
  const result = await runCommand(slash, commandContext(live, new AbortController().signal));
  if ("reply" in result) return commandReply(live, result.reply);
  return submit(live, textPrompt(result.prompt), requestSignal, arrived);
}

/** The reply to a plain prompt that redirected the running turn (Hermes' wording). */
export const REDIRECTED_REPLY = "Redirected the active turn with your correction.";

/**
 * What the model gets for ACP prompt blocks (attachments converted, see `promptContent`), with the
 * text used for echoes and `/` commands ("[Attachment]" when there is no typed text); undefined
 * when nothing is left to send.
 */
async function pendingPrompt(blocks: readonly ContentBlock[], cwd: string): Promise<PendingPrompt | undefined> {
  const converted = await promptContent(blocks, { cwd });
  if (converted.empty) return undefined;
  return withSlash({ content: converted.content, text: converted.text || "[Attachment]", textOnly: converted.textOnly });
}

function textPrompt(text: string): PendingPrompt {
  return withSlash({ content: text, text, textOnly: true });
}

/** The prompt with its `/command` parsed, once, when it arrives. */
function withSlash(prompt: PendingPrompt): PendingPrompt {
  const slash = prompt.textOnly ? parseSlashCommand(prompt.text) : undefined;
  return slash ? { ...prompt, slash } : prompt;
}

/**
 * Runs `prompt` holding the session, or, when something else holds it: with `refusal` (a
 * command), answers that; a plain text prompt redirects the running turn when it takes one;
 * anything else is queued.
 */
async function submit(live: LiveSession, prompt: PendingPrompt, requestSignal: AbortSignal, arrived: number, refusal?: string): Promise<PromptResponse> {
  const hold = await live.acquire(arrived);
  if (hold) return drain(live, hold, prompt, requestSignal);
  if (refusal) return commandReply(live, refusal);
  const correction = typeof prompt.content === "string" ? prompt.content : prompt.text;
  if (prompt.textOnly && !prompt.slash && live.redirect(correction)) return reply(live, REDIRECTED_REPLY);
  return reply(live, queuedReply(live.enqueue(prompt)));
}

/** Runs `first`, then the queue, while holding the session; releases it at the end. */
async function drain(live: LiveSession, hold: SessionHold, first: PendingPrompt, requestSignal: AbortSignal): Promise<PromptResponse> {
  const onRequestAbort = (): void => live.cancel();
  requestSignal.addEventListener("abort", onRequestAbort, { once: true });
  // `$/cancel_request` that arrived while this prompt waited for the session (or its attachments were read).
  if (requestSignal.aborted) onRequestAbort();
  let stopReason: StopReason = "end_turn";
  let usage: TokenUsage | undefined;
  try {
    let next: PendingPrompt | undefined = first;
    while (next) {
      const result = await execute(live, hold, next);
      sendUsage(live);
      if (result) {
        stopReason = result.stopReason;
        usage = addUsage(usage, result.usage);
      }
      if (hold.signal.aborted) break;
      next = live.dequeue();
      // A prompt queued while the last updates were being written runs too: nothing else would run it.
      if (!next) {
        await live.updates.flushed();
        next = hold.signal.aborted ? undefined : live.dequeue();
      }
      if (next) live.updates.send({ sessionUpdate: "user_message_chunk", messageId: newId(), content: { type: "text", text: next.text } });
    }
    await live.updates.flushed();
    return { stopReason: hold.signal.aborted ? "cancelled" : stopReason, ...(usage ? { usage: toAcpUsage(usage) } : {}) };
  } finally {
    requestSignal.removeEventListener("abort", onRequestAbort);
    hold.release();
  }
}

/** One item while holding the session: a command (replied to) or a model turn. */
async function execute(live: LiveSession, hold: SessionHold, prompt: PendingPrompt): Promise<{ stopReason: StopReason; usage: TokenUsage | undefined } | undefined> {
  const slash: SlashInvocation | undefined = prompt.slash;
  if (slash) {
    const result = await runCommand(slash, commandContext(live, hold.signal));
    if ("reply" in result) {
      sendReply(live, result.reply);
      return undefined;
    }
    return runPromptTurn(live, hold, textPrompt(result.prompt));
  }
  return runPromptTurn(live, hold, prompt);
}

function commandContext(live: LiveSession, signal: AbortSignal): CommandContext {
  return {
    session: live.session,
    commands: COMMANDS,
    turnActive: live.turnActive,
    queueLength: live.queueLength,
    enqueue: (text) => live.enqueue(textPrompt(text)),
    steer: (text) => live.steer(text),
    clearInterrupted: () => live.clearInterrupted(),
    switchModel: (value) => live.switchModel(value),
    confirmEdits: async (request) => (await live.permissions.askEdit(request, signal)) === "allow",
    signal,
  };
}

function sendReply(live: LiveSession, text: string): void {
  live.updates.send({ sessionUpdate: "agent_message_chunk", messageId: newId(), content: { type: "text", text } });
}

/** Answers with `text` as the agent's message and ends the turn without the model. */
async function reply(live: LiveSession, text: string): Promise<PromptResponse> {
  sendReply(live, text);
  await live.updates.flushed();
  return { stopReason: "end_turn" };
}

/** A local command's answer: its text, then `usage_update` (as Hermes after every command), then `end_turn`. */
async function commandReply(live: LiveSession, text: string): Promise<PromptResponse> {
  sendReply(live, text);
  sendUsage(live);
  await live.updates.flushed();
  return { stopReason: "end_turn" };
}
