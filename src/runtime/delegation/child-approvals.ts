import type { HermesConfig } from "../../config/schema.js";
import { log } from "../../shared/logger.js";
import type { CommandApprovalRequest, EditApprovalRequest, ToolPorts } from "../../tools/ports.js";
import { allowanceKey } from "../../tools/terminal/guard.js";
import type { CommandAnswer, PermissionAsker } from "../approvals.js";
import { editAutoApproved, type SessionMode } from "../edit-policy.js";

export interface ChildApprovalInput {
  /** Put before what the user reads, e.g. `[child 2: fix the parser]`. */
  label: string;
  /** The parent's delegate_task call: the editor shows the request on it. */
  callId: string;
  /** The parent session's asker now (the one its turns use); undefined = nobody to ask (denied). */
  asker: () => PermissionAsker | undefined;
  /** The child's cancellation: a pending question is withdrawn with it (and denied). */
  signal: AbortSignal;
  cwd: string;
  hermesHome: string;
  /** The parent's config, fixed when it started (approval settings never change under a session). */
  config: HermesConfig;
  /** The parent's session mode now (plan: no edits; accept-edits: edits in the project go ahead). */
  mode: () => SessionMode;
}

function isAllow(answer: CommandAnswer): boolean {
  return answer === "allow_once" || answer === "allow_session" || answer === "allow_always";
}

/**
 * A child's approval ports. Every question goes to the parent session's own asker (so it is
 * serialized with the parent's questions and reaches only that session's editor), labelled, on the
 * parent's delegate_task call. Fails closed: a cancelled child, no asker, or any answer but an
 * explicit allow denies.
 *
 * - A run outside the sandbox (an escalation) is always asked, once, never remembered.
 * - A dangerous command inside the sandbox is never asked (Hermes' subagent callback): allowed
 *   when `approvals.mode` is off, the user's `command_allowlist` has it, or
 *   `delegation.subagent_auto_approve` is on (logged); otherwise denied (logged). Allowances the
 *   user gave the parent for its session do not extend to children.
 * - An edit follows the parent's mode like the parent's own edits (plan: denied; accept-edits:
 *   the project area goes ahead), else it is asked.
 */
export function childApprovalPorts(input: ChildApprovalInput): Required<Pick<ToolPorts, "approveCommand" | "approveEdit">> {
  const { signal, config } = input;
  return {
    approveCommand: async (request: CommandApprovalRequest) => {
      if (signal.aborted) return false;
      if (request.escalation) {
        const asker = input.asker();
        if (!asker) return false;
        return isAllow(await asker.askCommand({ ...request, callId: input.callId, description: `${input.label} ${request.description}` }, signal));
      }
      if (config.approvals.mode === "off") return true;
      if (config.command_allowlist.includes(request.patternKey) || config.command_allowlist.includes(allowanceKey(request.command))) return true;
      if (config.delegation.subagent_auto_approve) {
        log.warn(`subagent auto-approved dangerous command: ${request.command} (${request.description})`);
        return true;
      }
      log.warn(`subagent auto-denied dangerous command: ${request.command} (${request.description}); set delegation.subagent_auto_approve: true to allow`);
      return false;
    },
    approveEdit: async (request: EditApprovalRequest) => {
      const mode = input.mode();
      if (signal.aborted || mode === "plan") return false;
      const paths = request.edits.flatMap((edit) => (edit.fromPath ? [edit.path, edit.fromPath] : [edit.path]));
      if (editAutoApproved(mode, paths, input.cwd, [input.hermesHome])) return true;
      const asker = input.asker();
      if (!asker) return false;
      return (await asker.askEdit({ ...request, callId: input.callId, label: input.label }, signal)) === "allow";
    },
  };
}

/** `[child 2: <goal, ≤60 chars on one line>]`; `path` names nested children (`1.2`). Pure. */
export function childLabel(path: string, goal: string): string {
  const flat = goal.replace(/\s+/g, " ").trim();
  return `[child ${path}: ${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}]`;
}
