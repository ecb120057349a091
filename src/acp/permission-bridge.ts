import { methods, type AgentContext, type PermissionOption, type RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import type { CommandAnswer, EditAnswer, PermissionAsker } from "../runtime/approvals.js";
import { log } from "../shared/logger.js";
import type { CommandApprovalRequest, EditApprovalRequest } from "../tools/ports.js";
import { editDiffContent } from "./tool-render.js";

export const COMMAND_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_session", name: "Allow for session", kind: "allow_always" },
  { optionId: "allow_always", name: "Allow always", kind: "allow_always" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
  { optionId: "deny_always", name: "Deny always", kind: "reject_always" },
];

export const EDIT_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow edit", kind: "allow_once" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
];

const COMMAND_ANSWERS = new Set<string>(COMMAND_OPTIONS.map((option) => option.optionId));

/**
 * Asks the editor with `session/request_permission`, one request at a time per session, shown on
 * the tool call that asks. Fails closed: a cancelled outcome, an option that was not offered, a
 * failed request, the turn's cancellation and `approvals.timeout` all answer "deny".
 */
export class PermissionBridge implements PermissionAsker {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: AgentContext,
    private readonly sessionId: string,
    private readonly timeoutMs: () => number,
  ) {}

  async askCommand(request: CommandApprovalRequest, signal: AbortSignal): Promise<CommandAnswer> {
    const optionId = await this.ask(
      {
        sessionId: this.sessionId,
        toolCall: {
          toolCallId: request.callId,
          title: `${request.description}: ${request.command}`,
          kind: "execute",
          status: "pending",
          content: [{ type: "content", content: { type: "text", text: `${request.description}\n$ ${request.command}` } }],
          rawInput: { command: request.command, description: request.description },
        },
        options: COMMAND_OPTIONS,
      },
      signal,
    );
    return optionId && COMMAND_ANSWERS.has(optionId) ? (optionId as CommandAnswer) : "deny";
  }

  async askEdit(request: EditApprovalRequest, signal: AbortSignal): Promise<EditAnswer> {
    const optionId = await this.ask(
      {
        sessionId: this.sessionId,
        toolCall: {
          toolCallId: request.callId,
          kind: "edit",
          status: "pending",
          content: request.edits.map(editDiffContent),
          locations: request.edits.map((edit) => ({ path: edit.path })),
        },
        options: EDIT_OPTIONS,
      },
      signal,
    );
    return optionId === "allow_once" ? "allow" : "deny";
  }

  /** The selected option id, or undefined for every way of not choosing. Never rejects. */
  private ask(params: RequestPermissionRequest, turnSignal: AbortSignal): Promise<string | undefined> {
    const run = async (): Promise<string | undefined> => {
      if (turnSignal.aborted) return undefined;
      const signal = AbortSignal.any([turnSignal, AbortSignal.timeout(this.timeoutMs())]);
      try {
        const response = await this.client.request(methods.client.session.requestPermission, params, {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        });
        const outcome = response.outcome;
        if (outcome.outcome !== "selected") return undefined;
        if (!params.options.some((option) => option.optionId === outcome.optionId)) {
          log.warn(`permission answer "${outcome.optionId}" was not offered; denying`);
          return undefined;
        }
        return outcome.optionId;
      } catch (error) {
        if (!turnSignal.aborted) log.warn(`permission request for ${params.toolCall.toolCallId} failed or timed out; denying`, error);
        return undefined;
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next;
    return next;
  }
}
