import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { errorMessage } from "../../shared/errors.js";
import type { LiveSession } from "../session-manager.js";
import { compressCommand } from "./compress.js";
import { contextCommand } from "./context.js";
import { helpCommand } from "./help.js";
import { modelCommand } from "./model.js";
import { queueCommand } from "./queue.js";
import { resetCommand } from "./reset.js";
import { rollbackCommand } from "./rollback.js";
import { statusCommand } from "./status.js";
import { steerCommand } from "./steer.js";
import { toolsCommand } from "./tools.js";
import type { CommandContext, CommandResult, SlashCommand, SlashInvocation } from "./types.js";
import { versionCommand } from "./version.js";

/** Every slash command, in advertised order. */
export const COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  modelCommand,
  toolsCommand,
  contextCommand,
  resetCommand,
  compressCommand,
  rollbackCommand,
  steerCommand,
  queueCommand,
  versionCommand,
  statusCommand,
];

export type { SlashInvocation } from "./types.js";

/**
 * The command `text` invokes: the first word without its `/`, lower-cased, when it names a known
 * command; the arguments are the rest, trimmed. Undefined for anything else (plain text, `/`
 * alone, an unknown `/word`, a path such as `/etc/hosts`): that text goes to the model.
 */
export function parseSlashCommand(text: string): SlashInvocation | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const name = (match[1] ?? "").toLowerCase();
  const command = COMMANDS.find((candidate) => candidate.name === name);
  return command ? { command, args: (match[2] ?? "").trim() } : undefined;
}

/** The commands as ACP advertises them: name, description, and an input hint where they take one. */
export function availableCommands(): AvailableCommand[] {
  return COMMANDS.map((command) => ({
    name: command.name,
    description: command.description,
    input: command.hint ? { hint: command.hint } : null,
  }));
}

export function availableCommandsUpdate(): SessionUpdate {
  return { sessionUpdate: "available_commands_update", availableCommands: availableCommands() };
}

/**
 * Sends `available_commands_update` to the session's client right after the response of the
 * request being handled. Call it as the handler's last step, just before returning: the SDK
 * writes the response in the microtasks after the handler resolves, and the update is sent on
 * the next macrotask, so it follows the response (and, for `session/load`, the replay).
 */
export function advertiseCommands(live: LiveSession): void {
  setImmediate(() => live.updates.send(availableCommandsUpdate()));
}

/** Runs a command; an error becomes the reply `Error executing /<name>: <message>`. Never rejects. */
export async function runCommand(invocation: SlashInvocation, ctx: CommandContext): Promise<CommandResult> {
  try {
    return await invocation.command.run(invocation.args, ctx);
  } catch (error) {
    return { reply: `Error executing /${invocation.command.name}: ${errorMessage(error)}` };
  }
}
