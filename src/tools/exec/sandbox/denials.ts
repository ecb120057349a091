import type { SandboxPlan } from "./policy.js";

/** Output that a confined command prints when the sandbox, not the command, said no. */
const WRITE_REFUSED = /Read-only file system|EROFS/;
const READ_REFUSED = /Permission denied|EACCES|Operation not permitted|EPERM/;
const NETWORK_CUT =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo|Name or service not known|Connection refused|ECONNREFUSED|No address associated|Failed to connect/i;

/**
 * A sentence the model can act on when a sandboxed command's output shows the sandbox refused
 * something (a write outside the writable roots, a hidden path, a cut network); undefined when
 * nothing points at the sandbox. Pure.
 */
export function sandboxDenialHint(output: string, plan: SandboxPlan, exitCode: number): string | undefined {
  if (exitCode === 0) return undefined;
  if (/^bwrap: /m.test(output)) {
    return "[sandbox] The sandbox could not start this command (the bwrap message above says why); nothing of the command ran.";
  }
  const causes: string[] = [];
  if (WRITE_REFUSED.test(output)) {
    const where = plan.mode === "read-only" ? "only temp folders are writable in this mode" : `writable: ${plan.writable.join(", ")}`;
    causes.push(`a write outside the sandbox's writable folders was refused (${where}; HERMES_HOME, .git/hooks and .git/config are read-only)`);
  }
  if (READ_REFUSED.test(output)) causes.push("credential files and folders (~/.ssh, ~/.aws, HERMES_HOME/.env …) are unreadable, and commands have no special privileges");
  if (!plan.network && NETWORK_CUT.test(output)) causes.push("the network is cut (sandbox.network: false)");
  if (causes.length === 0) return undefined;
  return (
    `[sandbox] This failure may come from the sandbox: ${causes.join("; ")}. If the command really needs this, ` +
    'run it again with sandbox: "off" and a reason; the user will be asked to allow it outside the sandbox.'
  );
}
