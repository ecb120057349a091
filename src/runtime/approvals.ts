import type { HermesConfig } from "../config/schema.js";
import { log } from "../shared/logger.js";
import type { CommandApprovalRequest, EditApprovalRequest, ToolPorts } from "../tools/ports.js";
import { editAutoApproved, type SessionMode } from "./edit-policy.js";
import { allowanceKey } from "../tools/terminal/guard.js";
import type { ApprovalGuardian } from "./approval-guardian.js";

function isAllow(answer: CommandAnswer): boolean {
  return answer === "allow_once" || answer === "allow_session" || answer === "allow_always";
}

/** What the user can answer to a dangerous command. */
export type CommandAnswer = "allow_once" | "allow_session" | "allow_always" | "deny" | "deny_always";
/** What the user can answer to an edit. */
export type EditAnswer = "allow" | "deny";

/**
 * How a front end asks the user. Implementations resolve "deny" for anything but an explicit
 * allow: a cancelled request, an unknown option, a timeout, a transport failure. They never reject.
 */
export interface PermissionAsker {
  askCommand(request: CommandApprovalRequest, signal: AbortSignal): Promise<CommandAnswer>;
  askEdit(request: EditApprovalRequest, signal: AbortSignal): Promise<EditAnswer>;
}

export interface ApprovalSettings {
  cwd: string;
  /** HERMES_HOME: edits there always ask, whatever the mode. */
  hermesHome: string;
  /**
   * The config as it was when the session started. Approval settings never change under a running
   * session: a command or an edit that rewrites config.yaml cannot loosen them.
   */
  config: HermesConfig;
  /** Persists "allow always" for a command (its allowance key, in config.yaml `command_allowlist`). */
  persistAllowed: (allowanceKey: string) => void;
  /** Judges flagged commands before the user is asked, in `approvals.mode: smart` (see approval-guardian.ts). */
  guardian?: ApprovalGuardian;
}

/**
 * One session's approval state: its mode, the commands allowed for the session and the
 * dangerous-command rules denied for it. `ports` binds it to one turn's asker and signal, so an
 * approval can reach only the session that owns the turn and ends with the turn.
 *
 * Allowances cover what the user saw: "allow for session" / "allow always" remember the command
 * (its `allowanceKey`), never the rule that matched it, so allowing `rm -rf build` does not allow
 * `rm -rf ~/Documents`. "Deny always" denies the whole rule for the session (denying more fails
 * closed). A request to run outside the sandbox is always asked and never remembered.
 */
export class SessionApprovals {
  mode: SessionMode = "default";
  private readonly allowedCommands = new Set<string>();
  private readonly deniedPatterns = new Set<string>();

  constructor(private readonly settings: ApprovalSettings) {}

  ports(asker: PermissionAsker, signal: AbortSignal): Pick<ToolPorts, "approveCommand" | "approveEdit"> {
    return {
      approveCommand: (request) => this.approveCommand(request, asker, signal),
      approveEdit: (request) => this.approveEdit(request, asker, signal),
    };
  }

  private async approveCommand(request: CommandApprovalRequest, asker: PermissionAsker, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    if (request.escalation) return isAllow(await asker.askCommand(request, signal));
    const config = this.settings.config;
    if (config.approvals.mode === "off") return true;
    const key = request.patternKey;
    const command = allowanceKey(request.command);
    if (this.deniedPatterns.has(key)) return false;
    if (this.allowedCommands.has(command) || config.command_allowlist.includes(key) || config.command_allowlist.includes(command)) return true;
    const guardian = config.approvals.mode === "smart" && !request.userOnly ? this.settings.guardian : undefined;
    if (guardian) {
      const { verdict, reason } = await guardian(request, signal);
      if (signal.aborted) return false;
      if (verdict === "approve") return true;
      if (verdict === "deny") return (await asker.askCommand({ ...request, guardianDenied: reason }, signal)) === "allow_once";
    }
    const answer = await asker.askCommand(request, signal);
    switch (answer) {
      case "allow_once":
        return true;
      case "allow_session":
        this.allowedCommands.add(command);
        return true;
      case "allow_always":
        this.allowedCommands.add(command);
        try {
          this.settings.persistAllowed(command);
        } catch (error) {
          log.warn("could not save the command to command_allowlist; allowed for this session only", error);
        }
        return true;
      case "deny_always":
        this.deniedPatterns.add(key);
        return false;
      default:
        return false;
    }
  }

  private async approveEdit(request: EditApprovalRequest, asker: PermissionAsker, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted || this.mode === "plan") return false;
    const paths = request.edits.flatMap((edit) => (edit.fromPath ? [edit.path, edit.fromPath] : [edit.path]));
    if (editAutoApproved(this.mode, paths, this.settings.cwd, [this.settings.hermesHome])) {
      log.info(`auto-approved ${request.toolName} edit of ${paths.join(", ")} in mode ${this.mode}`);
      return true;
    }
    return (await asker.askEdit(request, signal)) === "allow";
  }

  /** Whether edits to `paths` would go ahead without asking (the editor then shows the diff on the tool call). */
  autoApproves(paths: readonly string[]): boolean {
    return editAutoApproved(this.mode, paths, this.settings.cwd, [this.settings.hermesHome]);
  }
}
