import { methods, type AgentContext, type PermissionOption, type RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import type { CommandAnswer, EditAnswer, PermissionAsker } from "../runtime/approvals.js";
import { log } from "../shared/logger.js";
import type { CommandApprovalRequest, EditApprovalRequest } from "../tools/ports.js";
import { editApprovalToolCall } from "./render/edit-approval.js";

/**
 * The options for a dangerous command, in this order. ACP has four kinds for five answers, so one
 * kind is shared, chosen so a client that picks by kind gets what the kind promises:
 * `allow_once` → "Allow once" (listed first, so it is the first of its kind), `allow_always` →
 * "Always allow" (the only one: remembered in config.yaml), `reject_once` → "Deny",
 * `reject_always` → "Deny always". "Allow for session" shares `allow_once`: it is not remembered
 * beyond this session, and a client choosing by `allow_always` must not get a narrower allowance
 * than it asked for, nor one choosing by `allow_once` a wider one (it takes the first, "Allow
 * once"). Hermes gives it `allow_always`; the option ids are Hermes' and carry the meaning.
 */
export const COMMAND_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_session", name: "Allow for session", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow always", kind: "allow_always" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
  { optionId: "deny_always", name: "Deny always", kind: "reject_always" },
];

export const EDIT_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow edit", kind: "allow_once" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
];

/** A run outside the sandbox is allowed once or not at all. */
export const ESCALATION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Run outside the sandbox once", kind: "allow_once" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
];

/** The options for a command the smart-approval guardian advised against (nothing is remembered). */
export const GUARDIAN_DENIED_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once anyway", kind: "allow_once" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
];

/** Longest command shown inside an option's label. */
const LABEL_COMMAND_CHARS = 60;

/**
 * The options for a dangerous command, their labels naming the command an allowance covers
 * (an allowance is for that command, never the rule that matched it).
 */
export function commandOptions(command: string): PermissionOption[] {
  const flat = command.trim().replace(/\s+/g, " ");
  const shown = flat.length > LABEL_COMMAND_CHARS ? `${flat.slice(0, LABEL_COMMAND_CHARS - 1)}…` : flat;
  return COMMAND_OPTIONS.map((option) => {
    if (option.optionId === "allow_session") return { ...option, name: `Allow \`${shown}\` for this session` };
    if (option.optionId === "allow_always") return { ...option, name: `Always allow \`${shown}\`` };
    return option;
  });
}

/**
 * Asks the editor with `session/request_permission`, one request at a time per session, shown on
 * the tool call that asks. An edit request names where each write really lands (symlinks resolved,
 * hard links counted; see `editApprovalToolCall`). Fails closed: a cancelled outcome, an option that was not offered, a
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
    const escalation = request.escalation;
    const guardian = request.guardianDenied;
    const options = escalation ? ESCALATION_OPTIONS : guardian !== undefined ? GUARDIAN_DENIED_OPTIONS : commandOptions(request.command);
    const reason = escalation
      ? `\nReason: ${escalation.reason}\nIn: ${escalation.cwd}\nThe command will run outside the sandbox, with your full permissions.`
      : guardian !== undefined
        ? `\nThe approval guardian advised against it${guardian ? `: ${guardian}` : "."}`
        : "";
    const optionId = await this.ask(
      {
        sessionId: this.sessionId,
        toolCall: {
          toolCallId: request.callId,
          title: `${request.description}: ${request.command}`,
          kind: "execute",
          status: "pending",
          content: [{ type: "content", content: { type: "text", text: `${request.description}\n$ ${request.command}${reason}` } }],
          rawInput: { command: request.command, description: request.description, ...(escalation ? { sandbox: "off", reason: escalation.reason, cwd: escalation.cwd } : {}) },
        },
        options,
      },
      signal,
    );
    return optionId && options.some((option) => option.optionId === optionId) ? (optionId as CommandAnswer) : "deny";
  }

  async askEdit(request: EditApprovalRequest, signal: AbortSignal): Promise<EditAnswer> {
    const optionId = await this.ask(
      {
        sessionId: this.sessionId,
        toolCall: editApprovalToolCall(request),
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
