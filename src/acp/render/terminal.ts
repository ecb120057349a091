import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { errorText, fenced, textContent, truncate } from "./text.js";
import type { ProgressRenderer, ToolRenderer } from "./types.js";

/**
 * `$ <command>` at start; output in a fence and the exit code at the end. Failed on a non-zero exit.
 * A command that ran in the editor's terminal (`details.terminalId`) is shown as that terminal
 * (`{type: "terminal", terminalId}`, live while it runs) plus the exit line, not as copied text.
 */
export const terminalRenderer: ToolRenderer<"terminal"> = {
  start(event) {
    return event.input ? [textContent(`$ ${event.input.command}`)] : [];
  },
  complete(event) {
    const details = event.details;
    if (!details) return { content: [textContent(truncate(event.content))] };
    if (details.refused) return { content: [textContent(truncate(details.error ?? errorText(event.content)))], failed: true };
    if (details.background) {
      return { content: [textContent(`Started in the background: process ${details.background.id} (pid ${details.background.pid})`)] };
    }
    const { exitCode, output, terminalId } = details;
    const lines: string[] = [];
    if (output && !terminalId) lines.push(fenced(truncate(output, 4800)));
    if (details.timedOut) lines.push("Timed out; the process group was killed.");
    if (details.interrupted) lines.push("Interrupted; the process group was killed.");
    lines.push(`Exit code: ${exitCode}`);
    const failed = event.isError || details.timedOut === true || exitCode !== 0;
    if (terminalId) {
      const terminal: ToolCallContent = { type: "terminal", terminalId };
      return { content: [terminal, textContent(lines.join("\n"))], failed };
    }
    return { content: [textContent(lines.join("\n"))], failed };
  },
};

/** A running command: the editor's terminal once it exists, else the output so far in a fence. */
export const terminalProgress: ProgressRenderer<"terminal"> = (event) => {
  const { terminalId, output } = event.details;
  if (terminalId) return [{ type: "terminal", terminalId }];
  return [textContent(output ? fenced(truncate(output, 4800)) : "")];
};
