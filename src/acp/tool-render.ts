import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { redactRegisteredSecrets } from "../config/redact.js";
import type { DetailedToolName, ToolProgressMap } from "../tools/details.js";
import {
  browserBackRenderer,
  browserClickRenderer,
  browserConsoleRenderer,
  browserGetImagesRenderer,
  browserNavigateRenderer,
  browserPressRenderer,
  browserScrollRenderer,
  browserSnapshotRenderer,
  browserTypeRenderer,
  browserVisionRenderer,
} from "./render/browser.js";
import { editDiffContent, patchRenderer, writeFileRenderer } from "./render/edit.js";
import { executeCodeProgress, executeCodeRenderer } from "./render/execute-code.js";
import { genericRenderer } from "./render/generic.js";
import { processRenderer } from "./render/process.js";
import { readFileRenderer } from "./render/read-file.js";
import { searchFilesRenderer } from "./render/search-files.js";
import { sessionSearchRenderer } from "./render/session-search.js";
import { skillsListRenderer } from "./render/skill-list.js";
import { skillManageRenderer } from "./render/skill-manage.js";
import { skillViewRenderer } from "./render/skill-view.js";
import { terminalProgress, terminalRenderer } from "./render/terminal.js";
import { DISPLAY_LIMIT, textContent, truncate } from "./render/text.js";
import { todoRenderer } from "./render/todo.js";
import { delegateProgress, delegateRenderer } from "./render/delegate.js";
import { visionAnalyzeRenderer } from "./render/vision.js";
import { webExtractRenderer, webSearchRenderer } from "./render/web.js";
import type {
  Completion,
  ProgressRenderer,
  ToolEnd,
  ToolEndOf,
  ToolProgress,
  ToolProgressOf,
  ToolRenderer,
  ToolStart,
  ToolStartOf,
} from "./render/types.js";

export { editDiffContent };
export { fenced } from "./render/text.js";

/** Text shown on a tool call the turn left open (blocked, denied, crashed or interrupted). */
export const ABANDONED_TOOL_TEXT = "This tool call ended without a result (blocked, denied, or interrupted).";

/** Every built-in tool's renderer (required: a tool with a details type has one); other tools get the generic one. */
const RENDERERS: { [N in DetailedToolName]: ToolRenderer<N> } = {
  delegate_task: delegateRenderer,
  web_search: webSearchRenderer,
  web_extract: webExtractRenderer,
  read_file: readFileRenderer,
  write_file: writeFileRenderer,
  patch: patchRenderer,
  search_files: searchFilesRenderer,
  vision_analyze: visionAnalyzeRenderer,
  terminal: terminalRenderer,
  execute_code: executeCodeRenderer,
  process: processRenderer,
  todo: todoRenderer,
  session_search: sessionSearchRenderer,
  skills_list: skillsListRenderer,
  skill_view: skillViewRenderer,
  skill_manage: skillManageRenderer,
  browser_navigate: browserNavigateRenderer,
  browser_snapshot: browserSnapshotRenderer,
  browser_click: browserClickRenderer,
  browser_type: browserTypeRenderer,
  browser_scroll: browserScrollRenderer,
  browser_back: browserBackRenderer,
  browser_press: browserPressRenderer,
  browser_get_images: browserGetImagesRenderer,
  browser_vision: browserVisionRenderer,
  browser_console: browserConsoleRenderer,
};

const PROGRESS_RENDERERS: { [N in keyof ToolProgressMap]: ProgressRenderer<N> } = { delegate_task: delegateProgress, terminal: terminalProgress, execute_code: executeCodeProgress };

function startOf<N extends DetailedToolName>(event: ToolStartOf<N>): ToolCallContent[] {
  const renderer: ToolRenderer<N> = RENDERERS[event.tool];
  return renderer.start(event);
}

function completionOf<N extends DetailedToolName>(event: ToolEndOf<N>): Completion {
  const renderer: ToolRenderer<N> = RENDERERS[event.tool];
  return renderer.complete(event);
}

function progressOf<N extends keyof ToolProgressMap>(event: ToolProgressOf<N>): ToolCallContent[] {
  const render: ProgressRenderer<N> = PROGRESS_RENDERERS[event.tool];
  return render(event);
}

/**
 * What every update of a tool call carries to name its tool: the schema's `name` on the start, and
 * `_meta.hermes.toolName` on the start and every update (Hermes' `_meta.hermes` namespace), for
 * clients that key on the tool rather than the title.
 */
function toolMeta(name: string): { _meta: { hermes: { toolName: string } } } {
  return { _meta: { hermes: { toolName: name } } };
}

/** Items of an array kept in `rawOutput` before a "… more" note; deeper values than `RAW_DEPTH` are elided. */
const RAW_ITEMS = 50;
const RAW_DEPTH = 6;
/** A `rawOutput` whose JSON is longer than this is sent as the truncated text instead. */
const RAW_JSON_LIMIT = 20_000;
/** Nesting kept in `rawInput`: deeper values (no real call has them) are elided, so the update always serializes. */
const RAW_INPUT_DEPTH = 64;

/** What stands for a value below the kept depth. */
const elided = (value: object): string => (Array.isArray(value) ? `[${value.length} items]` : "{…}");

/** `value` cut like display text (`rawOutput`); every string and key with the agent's secrets masked. */
function shrink(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactRegisteredSecrets(truncate(value, DISPLAY_LIMIT));
  if (!value || typeof value !== "object") return value;
  if (depth >= RAW_DEPTH) return elided(value);
  if (Array.isArray(value)) {
    const kept = value.slice(0, RAW_ITEMS).map((item: unknown) => shrink(item, depth + 1));
    return value.length > RAW_ITEMS ? [...kept, `... ${value.length - RAW_ITEMS} more items`] : kept;
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactRegisteredSecrets(key), shrink(item, depth + 1)]));
}

/**
 * The arguments as `rawInput`: whole, with every string and key masked like tool output (the
 * agent's registered secrets: provider keys, `.env` values, credential URLs), nesting past
 * `RAW_INPUT_DEPTH` elided. Pure; never throws.
 */
function rawToolInput(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactRegisteredSecrets(value);
  if (!value || typeof value !== "object") return value;
  if (depth >= RAW_INPUT_DEPTH) return elided(value);
  if (Array.isArray(value)) return value.map((item: unknown) => rawToolInput(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactRegisteredSecrets(key), rawToolInput(item, depth + 1)]));
}

/**
 * A finished call's `rawOutput`: the result as the model got it (secrets already masked), the
 * parsed JSON when it is a JSON object or array (strings cut like display text, long arrays cut
 * with a note, and masked again: parsing decodes `\u` escapes the text's masking could not see),
 * else the text cut at the display limit. Pure; never throws.
 */
export function rawToolOutput(content: string): unknown {
  const trimmed = content.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed && typeof parsed === "object") {
        const shrunk = shrink(parsed, 0);
        if (JSON.stringify(shrunk).length <= RAW_JSON_LIMIT) return shrunk;
      }
    } catch {
      // not JSON: the text
    }
  }
  return truncate(content);
}

/**
 * `tool_call` for a starting tool, with the raw arguments (`rawInput`) and the tool's name.
 * An edit that goes ahead without asking (`event.edits`, see `ToolStartBase`) shows its diff
 * here, as there is no approval card to show it. The arguments' strings (title, text, `rawInput`)
 * have the agent's secrets masked like tool output. Pure; never throws (falls back to the bare
 * tool name).
 */
export function toolStartUpdate(event: ToolStart): SessionUpdate {
  const base = {
    sessionUpdate: "tool_call" as const,
    toolCallId: event.callId,
    title: redactRegisteredSecrets(event.title || event.name),
    name: event.name,
    kind: event.kind,
    status: "in_progress" as const,
    rawInput: rawToolInput(event.args),
    ...toolMeta(event.name),
  };
  try {
    const content = event.edits?.length ? event.edits.map(editDiffContent) : event.tool === null ? genericRenderer.start(event) : startOf(event);
    return {
      ...base,
      locations: event.locations.map((location) => ({ ...location })),
      content: content.map(maskedContent),
    };
  } catch {
    return { ...base, title: event.name };
  }
}

/** A start's content block with the agent's secrets masked in its text (diffs are masked when previewed). */
function maskedContent(block: ToolCallContent): ToolCallContent {
  if (block.type !== "content" || block.content.type !== "text") return block;
  return { ...block, content: { ...block.content, text: redactRegisteredSecrets(block.content.text) } };
}

/**
 * `tool_call_update` closing a tool call, with `rawOutput` (`rawToolOutput`). `failed` comes
 * from the executor's verdict or a structured signal in the result (a non-zero exit code,
 * `success: false`), never from words in the output. Pure; never throws (falls back to the
 * plain text).
 */
export function toolEndUpdate(event: ToolEnd): SessionUpdate {
  const rawOutput = rawToolOutput(event.content);
  try {
    const completion = event.tool === null ? genericRenderer.complete(event) : completionOf(event);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: event.callId,
      status: (completion.failed ?? event.isError) ? "failed" : "completed",
      content: completion.content,
      ...(completion.locations ? { locations: completion.locations.map((location) => ({ ...location })) } : {}),
      rawOutput,
      ...toolMeta(event.name),
    };
  } catch {
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: event.callId,
      status: event.isError ? "failed" : "completed",
      content: event.content ? [textContent(truncate(event.content))] : [],
      rawOutput,
      ...toolMeta(event.name),
    };
  }
}

/** `tool_call_update` showing a running tool's partial result (still in progress). Never throws. */
export function toolProgressUpdate(event: ToolProgress): SessionUpdate {
  try {
    const content = event.tool === null ? [] : progressOf(event);
    return { sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress", content, ...toolMeta(event.name) };
  } catch {
    return { sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress", ...toolMeta(event.name) };
  }
}

/** Closes a tool call the turn never finished. */
export function abandonedToolUpdate(callId: string): SessionUpdate {
  return { sessionUpdate: "tool_call_update", toolCallId: callId, status: "failed", content: [textContent(ABANDONED_TOOL_TEXT)] };
}
