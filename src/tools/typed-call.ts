/**
 * A tool call's arguments and result details typed by the tool they belong to. The tags here are
 * the discriminated unions events, the store and renderers share: `tool` names a built-in tool
 * (`DetailedToolName`), or is `null` for any other (MCP tools, unknown names), whose details stay
 * opaque and are read by no renderer.
 */
import {
  decodeDetails,
  isDetailedToolName,
  isProgressToolName,
  type DetailedToolName,
  type DetailsOf,
  type ToolProgressMap,
} from "./details.js";
import type { BrowserConsoleArgs, BrowserGetImagesArgs, BrowserSnapshotArgs } from "./browser/inspect.js";
import type { BrowserClickArgs, BrowserPressArgs, BrowserScrollArgs, BrowserTypeArgs } from "./browser/interact.js";
import type { BrowserBackArgs, BrowserNavigateArgs } from "./browser/navigate.js";
import type { BrowserVisionArgs } from "./browser/vision.js";
import type { ExecuteCodeArgs } from "./execute-code/execute-code.js";
import type { PatchArgs } from "./patch/patch.js";
import type { ProcessArgs } from "./process/process.js";
import type { ReadFileArgs } from "./read-file/read-file.js";
import type { SearchFilesArgs } from "./search-files/search-files.js";
import type { SessionSearchArgs } from "./session-search/session-search.js";
import type { SkillManageArgs } from "./skills/skill-manage.js";
import type { SkillViewArgs } from "./skills/skill-view.js";
import type { SkillsListArgs } from "./skills/skills-list.js";
import type { TerminalArgs } from "./terminal/terminal.js";
import type { DelegateTaskArgs } from "./delegate/params.js";
import type { TodoArgs } from "./todo/todo.js";
import type { VisionAnalyzeArgs } from "./vision/params.js";
import type { WebExtractArgs, WebSearchArgs } from "./web/params.js";
import type { WriteFileArgs } from "./write-file/write-file.js";

/** Each built-in tool's validated arguments (its params' output), by name; the same keys as `ToolDetailsMap`. */
export interface ToolArgsMap {
  delegate_task: DelegateTaskArgs;
  web_search: WebSearchArgs;
  web_extract: WebExtractArgs;
  terminal: TerminalArgs;
  execute_code: ExecuteCodeArgs;
  process: ProcessArgs;
  read_file: ReadFileArgs;
  write_file: WriteFileArgs;
  patch: PatchArgs;
  search_files: SearchFilesArgs;
  vision_analyze: VisionAnalyzeArgs;
  todo: TodoArgs;
  session_search: SessionSearchArgs;
  skills_list: SkillsListArgs;
  skill_view: SkillViewArgs;
  skill_manage: SkillManageArgs;
  browser_navigate: BrowserNavigateArgs;
  browser_snapshot: BrowserSnapshotArgs;
  browser_click: BrowserClickArgs;
  browser_type: BrowserTypeArgs;
  browser_scroll: BrowserScrollArgs;
  browser_back: BrowserBackArgs;
  browser_press: BrowserPressArgs;
  browser_get_images: BrowserGetImagesArgs;
  browser_vision: BrowserVisionArgs;
  browser_console: BrowserConsoleArgs;
}

type SameKeys = [keyof ToolArgsMap] extends [DetailedToolName] ? ([DetailedToolName] extends [keyof ToolArgsMap] ? true : false) : false;
/** Compile-time check: every tool with a details type has an args type, and the other way round. */
const _argsMapCoversDetailedTools: SameKeys = true;

export type ArgsOf<N extends DetailedToolName> = ToolArgsMap[N];

/** Result details typed by their tool. */
export type TypedDetails =
  | { [N in DetailedToolName]: { tool: N; details?: DetailsOf<N> } }[DetailedToolName]
  | { tool: null; details?: unknown };

/** Validated arguments of a call to the built-in tool `N` (absent when they did not validate). */
export interface ArgsTagOf<N extends DetailedToolName> {
  tool: N;
  input?: ArgsOf<N>;
}

/** Validated arguments and result details of a call to the built-in tool `N`. */
export interface CallTagOf<N extends DetailedToolName> extends ArgsTagOf<N> {
  details?: DetailsOf<N>;
}

/** What the built-in tool `N` reported while running. */
export interface ProgressTagOf<N extends keyof ToolProgressMap> {
  tool: N;
  details: ToolProgressMap[N];
}

/** A call's validated arguments, typed by their tool. */
export type TypedArgs = { [N in DetailedToolName]: ArgsTagOf<N> }[DetailedToolName] | { tool: null; input?: undefined };

/** A call's validated arguments and result details, typed by their tool. */
export type TypedCall = { [N in DetailedToolName]: CallTagOf<N> }[DetailedToolName] | { tool: null; input?: undefined; details?: unknown };

/** What a running tool reported, typed by its tool. */
export type TypedProgress = { [N in keyof ToolProgressMap]: ProgressTagOf<N> }[keyof ToolProgressMap] | { tool: null; details: unknown };

/**
 * What a finished tool call carried besides its text, as the loop hands it to be stored: a
 * discriminated union on `tool`. Replays get it back through `decodeToolOutcome`.
 */
export type TypedToolOutcome = TypedDetails & { isError: boolean };

/** A tool outcome as the store keeps and returns it: `details` unchecked. */
export interface StoredToolOutcome {
  isError: boolean;
  details?: unknown;
}

/*
 * Tagging a live call is trusted, not checked: `defineTool` makes a tool named N return
 * `DetailsOf<N>` and report `ProgressOf<N>`, and its `params` produce `ArgsOf<N>` (MCP tools are
 * named `mcp__…`, so no other tool carries a built-in name). These four functions are the only
 * place that trust is spent.
 */

/** Validated `input` of a call to the tool `name`, tagged (see above). */
export function typeArgs(name: string, input: unknown): TypedArgs {
  return withoutUndefined(isDetailedToolName(name) ? { tool: name, input } : { tool: null }) as TypedArgs;
}

/** `input` and `details` of a call to the tool `name`, tagged (see above). */
export function typeCall(name: string, input: unknown, details: unknown): TypedCall {
  const tagged = isDetailedToolName(name) ? { tool: name, input, details } : { tool: null, details };
  return withoutUndefined(tagged) as TypedCall;
}

/** `details` of a result of the tool `name`, tagged (see above). */
export function typeDetails(name: string, details: unknown): TypedDetails {
  return withoutUndefined({ tool: isDetailedToolName(name) ? name : null, details }) as TypedDetails;
}

/** A progress report of the tool `name`, tagged (see above); a tool outside `ToolProgressMap` stays opaque. */
export function typeProgress(name: string, details: unknown): TypedProgress {
  return { tool: isProgressToolName(name) ? name : null, details } as TypedProgress;
}

/**
 * A stored outcome decoded for the tool `name`: details that fit the tool's schema keep their
 * type; details that do not (older rows, other versions) are dropped, so the call replays as its
 * plain text. Another tool's details are kept opaque. Never throws.
 */
export function decodeToolOutcome(name: string, stored: StoredToolOutcome | undefined): TypedToolOutcome {
  const isError = stored?.isError === true;
  if (!isDetailedToolName(name)) return withoutUndefined({ tool: null, isError, details: stored?.details });
  return { ...typeDetails(name, decodeDetails(name, stored?.details)), isError };
}

/** A copy of `value`'s own properties that are not undefined (built up, not deleted from, so it stays a fast object). */
function withoutUndefined<T extends object>(value: T): T {
  const copy: Partial<T> = {};
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] !== undefined) copy[key] = value[key];
  return copy as T;
}
