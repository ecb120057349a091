import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { editDiffContent, editRenderer } from "./render/edit.js";
import { genericRenderer } from "./render/generic.js";
import { processRenderer } from "./render/process.js";
import { readFileRenderer } from "./render/read-file.js";
import { searchFilesRenderer } from "./render/search-files.js";
import { sessionSearchRenderer } from "./render/session-search.js";
import { terminalRenderer } from "./render/terminal.js";
import { textContent, truncate } from "./render/text.js";
import { todoRenderer } from "./render/todo.js";
import type { ToolEnd, ToolProgress, ToolRenderer, ToolStart } from "./render/types.js";

export { editDiffContent };
export { fenced } from "./render/text.js";

/** Text shown on a tool call the turn left open (blocked, denied, crashed or interrupted). */
export const ABANDONED_TOOL_TEXT = "This tool call ended without a result (blocked, denied, or interrupted).";

const RENDERERS: Record<string, ToolRenderer> = {
  read_file: readFileRenderer,
  write_file: editRenderer,
  patch: editRenderer,
  search_files: searchFilesRenderer,
  terminal: terminalRenderer,
  process: processRenderer,
  todo: todoRenderer,
  session_search: sessionSearchRenderer,
};

function rendererFor(name: string): ToolRenderer {
  return RENDERERS[name] ?? genericRenderer;
}

/** `tool_call` for a starting tool. Pure; never throws (falls back to the bare tool name). */
export function toolStartUpdate(event: ToolStart): SessionUpdate {
  const base = {
    sessionUpdate: "tool_call" as const,
    toolCallId: event.callId,
    title: event.title || event.name,
    kind: event.kind,
    status: "in_progress" as const,
  };
  try {
    const render = rendererFor(event.name).start ?? genericRenderer.start!;
    return {
      ...base,
      locations: event.locations.map((location) => ({ ...location })),
      rawInput: event.args as Record<string, unknown>,
      content: render(event),
    };
  } catch {
    return { ...base, title: event.name };
  }
}

/**
 * `tool_call_update` closing a tool call. `failed` comes from the executor's verdict or a
 * structured signal in the result (a non-zero exit code, `success: false`), never from words in
 * the output. Pure; never throws.
 */
export function toolEndUpdate(event: ToolEnd): SessionUpdate {
  try {
    const completion = (rendererFor(event.name).complete ?? genericRenderer.complete!)(event);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: event.callId,
      status: (completion.failed ?? event.isError) ? "failed" : "completed",
      content: completion.content,
    };
  } catch {
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: event.callId,
      status: event.isError ? "failed" : "completed",
      content: event.content ? [textContent(truncate(event.content))] : [],
    };
  }
}

/** `tool_call_update` showing a running tool's partial result (still in progress). Never throws. */
export function toolProgressUpdate(event: ToolProgress): SessionUpdate {
  try {
    const render = rendererFor(event.name).complete ?? genericRenderer.complete!;
    const { content } = render({ type: "tool_end", callId: event.callId, name: event.name, args: event.args, content: "", details: event.details, isError: false });
    return { sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress", content };
  } catch {
    return { sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress" };
  }
}

/** Closes a tool call the turn never finished. */
export function abandonedToolUpdate(callId: string): SessionUpdate {
  return { sessionUpdate: "tool_call_update", toolCallId: callId, status: "failed", content: [textContent(ABANDONED_TOOL_TEXT)] };
}
