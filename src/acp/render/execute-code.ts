import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { InnerCall } from "../../tools/execute-code/details.js";
import { errorText, fenced, textContent, truncate } from "./text.js";
import type { ProgressRenderer, ToolRenderer } from "./types.js";

/** Most of a script shown on its tool call; longer scripts are cut with a note. */
const CODE_LIMIT = 4000;
const OUTPUT_LIMIT = 4800;

/** The script as a Python code block. */
function scriptBlock(code: string): ToolCallContent {
  return textContent(fenced(truncate(code, CODE_LIMIT), "python"));
}

const MARKS: Record<InnerCall["status"], string> = { running: "…", ok: "✓", error: "✗" };

/** One line per tool call the script made: `✓ read_file src/a.ts`. */
function callLines(calls: readonly InnerCall[]): ToolCallContent[] {
  return calls.length ? [textContent(calls.map((call) => `${MARKS[call.status]} ${call.summary}`).join("\n"))] : [];
}

const scriptArgs = z.object({ code: z.string() });

/**
 * Start: the script in a Python code block. While it runs: the script and the tool calls it has
 * made, one line each (`✓ read_file src/a.ts`). At the end: the script, the calls, what it printed
 * in a fence, and how it ended (exit code, timeout, cancel). Failed unless the status is success.
 */
export const executeCodeRenderer: ToolRenderer<"execute_code"> = {
  start(event) {
    return event.input ? [scriptBlock(event.input.code)] : [];
  },
  complete(event) {
    const details = event.details;
    const script = event.input ? [scriptBlock(event.input.code)] : [];
    if (!details) return { content: [...script, textContent(truncate(event.content))] };
    if (details.exitCode === -1 && details.calls.length === 0 && !details.output) {
      return { content: [...script, textContent(truncate(details.error ?? errorText(event.content)))], failed: true };
    }
    const lines: string[] = [];
    if (details.output) lines.push(fenced(truncate(details.output, OUTPUT_LIMIT)));
    if (details.status === "timeout") lines.push(details.error ?? "Timed out; the script was killed.");
    else if (details.status === "interrupted") lines.push("Interrupted; the script was killed.");
    else lines.push(`Exit code: ${details.exitCode} · ${details.toolCallsMade} tool call${details.toolCallsMade === 1 ? "" : "s"}`);
    return { content: [...script, ...callLines(details.calls), textContent(lines.join("\n"))], failed: event.isError || details.status !== "success" };
  },
};

/** A running script: the script and the tool calls so far. */
export const executeCodeProgress: ProgressRenderer<"execute_code"> = (event) => {
  const args = scriptArgs.safeParse(event.args);
  return [...(args.success ? [scriptBlock(args.data.code)] : []), ...callLines(event.details.calls)];
};
