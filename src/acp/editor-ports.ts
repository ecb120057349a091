import { methods, type AgentContext, type ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import type { ToolPorts } from "../tools/ports.js";
import { clientTerminalPort } from "./client-terminal.js";
import { canElicitForms, elicitationPort } from "./elicitation.js";

/** How long an edit written through the editor may take before it counts as failed. */
export const EDITOR_WRITE_TIMEOUT_MS = 60_000;

/**
 * The tool ports a turn gets from the editor, by what the client advertised in `initialize`:
 * - `fs.readTextFile` → `readTextFile` (`fs/read_text_file`): read_file and the edit tools see
 *   unsaved buffers. A failed read is the tool's error; read_file never falls back to disk for a
 *   file that exists there (the editor's answer is what the user sees).
 * - `fs.writeTextFile` → `writeTextFile` (`fs/write_text_file`): write_file and patch write
 *   through the editor, so its buffers stay in sync; local disk is not written separately.
 * - `terminal` → `runInClientTerminal` (`terminal/*`): the terminal tool runs in the editor's
 *   terminal, embedded in the tool call.
 * - `elicitation.form` → `askUser` (`elicitation/create`): `clarify` asks its questions as a form.
 * Nothing advertised → no ports (local disk and local bash). Reads stop waiting when `signal`
 * (the turn) is cancelled; writes are never abandoned half way, so the editor has the last word
 * on whether a write happened — unless it does not answer within a minute (the edit then fails).
 * Terminals are killed on `signal` by the terminal port.
 */
export function editorPorts(client: AgentContext, capabilities: ClientCapabilities | undefined, sessionId: string, signal: AbortSignal): ToolPorts {
  const ports: ToolPorts = {};
  if (capabilities?.fs?.readTextFile === true) {
    ports.readTextFile = async (path) => {
      const response = await client.request(methods.client.fs.readTextFile, { sessionId, path }, { cancellationSignal: signal, stopWaitingOnCancel: true });
      return response.content;
    };
  }
  if (capabilities?.fs?.writeTextFile === true) {
    ports.writeTextFile = async (path, content) => {
      // Not abandoned on cancel, but an editor that never answers must not hold the turn forever.
      await client.request(methods.client.fs.writeTextFile, { sessionId, path, content }, {
        cancellationSignal: AbortSignal.timeout(EDITOR_WRITE_TIMEOUT_MS),
        stopWaitingOnCancel: true,
      });
    };
  }
  if (capabilities?.terminal === true) ports.runInClientTerminal = clientTerminalPort(client, sessionId);
  if (canElicitForms(capabilities)) ports.askUser = elicitationPort(client, sessionId);
  return ports;
}
