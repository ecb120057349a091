import type { PermissionAsker } from "../runtime/approvals.js";

/**
 * Approvals for `hermes chat -q`, which has no one to ask mid-turn: dangerous commands are
 * denied (fail closed; allow a command with `command_allowlist` in config.yaml), edits go ahead as
 * in Hermes' own CLI. Each decision is reported on stderr.
 */
export const nonInteractiveAsker: PermissionAsker = {
  askCommand: async (request) => {
    process.stderr.write(`✗ denied (${request.description}): ${request.command} — chat mode cannot ask; add it to command_allowlist to allow it\n`);
    return "deny";
  },
  askEdit: async () => "allow",
};
