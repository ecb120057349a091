import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { errorText, fenced, isRecord, textContent, truncate } from "./text.js";
import type { ToolRenderer } from "./types.js";

/**
 * `$ <command>` at start; output in a fence and the exit code at the end. Failed on a non-zero exit.
 * A command that ran in the editor's terminal (`details.terminalId`) is shown as that terminal
 * (`{type: "terminal", terminalId}`, live while it runs) plus the exit line, not as copied text.
 */
export const terminalRenderer: ToolRenderer = {
  start(event) {
    const command = isRecord(event.args) && typeof event.args.command === "string" ? event.args.command : "";
    return command ? [textContent(`$ ${command}`)] : [];
  },
  complete(event) {
    const details = event.details;
    if (!isRecord(details)) return { content: [textContent(truncate(event.content))] };
    if (isRecord(details.refused)) return { content: [textContent(truncate(errorText(event.content)))], failed: true };
    if (isRecord(details.background)) {
      return { content: [textContent(`Started in the background: process ${String(details.background.id)} (pid ${String(details.background.pid)})`)] };
    }
    const exitCode = typeof details.exitCode === "number" ? details.exitCode : undefined;
    const output = typeof details.output === "string" ? details.output : "";
    const terminalId = typeof details.terminalId === "string" ? details.terminalId : undefined;
    const lines: string[] = [];
    if (output && !terminalId) lines.push(fenced(truncate(output, 4800)));
    if (details.timedOut) lines.push("Timed out; the process group was killed.");
    if (details.interrupted) lines.push("Interrupted; the process group was killed.");
    if (exitCode !== undefined) lines.push(`Exit code: ${exitCode}`);
    if (terminalId) {
      const terminal: ToolCallContent = { type: "terminal", terminalId };
      return {
        content: lines.length ? [terminal, textContent(lines.join("\n"))] : [terminal],
        failed: event.isError || details.timedOut === true || (exitCode !== undefined && exitCode !== 0),
      };
    }
    if (!lines.length) lines.push(truncate(event.content));
    return {
      content: [textContent(lines.join("\n"))],
      failed: event.isError || details.timedOut === true || (exitCode !== undefined && exitCode !== 0),
    };
  },
};
