/**
 * What each built-in tool reports for the editor, by tool name: the one map that ties a tool's
 * name to its `details` type (and, for tools that report while they run, its progress type).
 * `defineTool` checks a tool named here against its entry at compile time; the schemas decode
 * stored details (untrusted: older rows, other versions) when a transcript is replayed.
 *
 * Adding a tool with details: give it a `details.ts` (zod schema, type inferred from it), add one
 * line to `ToolDetailsMap` and one to `DETAILS_SCHEMAS`, its args type to `ToolArgsMap`
 * (typed-call.ts), and a renderer in `src/acp/render/` (the renderer table requires one).
 */
import type { z } from "zod";
import {
  browserBackDetailsSchema,
  browserClickDetailsSchema,
  browserConsoleDetailsSchema,
  browserGetImagesDetailsSchema,
  browserNavigateDetailsSchema,
  browserPressDetailsSchema,
  browserScrollDetailsSchema,
  browserSnapshotDetailsSchema,
  browserTypeDetailsSchema,
  browserVisionDetailsSchema,
  type BrowserBackDetails,
  type BrowserClickDetails,
  type BrowserConsoleDetails,
  type BrowserGetImagesDetails,
  type BrowserNavigateDetails,
  type BrowserPressDetails,
  type BrowserScrollDetails,
  type BrowserSnapshotDetails,
  type BrowserTypeDetails,
  type BrowserVisionDetails,
} from "./browser/details.js";
import { executeCodeDetailsSchema, type ExecuteCodeDetails, type ExecuteCodeProgress } from "./execute-code/details.js";
import { patchDetailsSchema, type PatchResultDetails } from "./patch/details.js";
import { processDetailsSchema, type ProcessDetails } from "./process/details.js";
import { readFileDetailsSchema, type ReadFileResultDetails } from "./read-file/details.js";
import { searchFilesDetailsSchema, type SearchFilesDetails } from "./search-files/details.js";
import { sessionSearchDetailsSchema, type SessionSearchResultDetails } from "./session-search/details.js";
import {
  skillManageDetailsSchema,
  skillsListDetailsSchema,
  skillViewDetailsSchema,
  type SkillManageResultDetails,
  type SkillsListDetails,
  type SkillViewResultDetails,
} from "./skills/details.js";
import { terminalDetailsSchema, type TerminalDetails, type TerminalProgress } from "./terminal/details.js";
import { delegateDetailsSchema, type DelegateDetails, type DelegateProgress } from "./delegate/details.js";
import { todoDetailsSchema, type TodoDetails } from "./todo/details.js";
import { visionDetailsSchema, type VisionResultDetails } from "./vision/details.js";
import { webExtractDetailsSchema, webSearchDetailsSchema, type WebExtractResultDetails, type WebSearchResultDetails } from "./web/details.js";
import { writeFileDetailsSchema, type WriteFileResultDetails } from "./write-file/details.js";

/** Each built-in tool's `details`, successes and failures alike. */
export interface ToolDetailsMap {
  delegate_task: DelegateDetails;
  web_search: WebSearchResultDetails;
  web_extract: WebExtractResultDetails;
  terminal: TerminalDetails;
  execute_code: ExecuteCodeDetails;
  process: ProcessDetails;
  read_file: ReadFileResultDetails;
  write_file: WriteFileResultDetails;
  patch: PatchResultDetails;
  search_files: SearchFilesDetails;
  vision_analyze: VisionResultDetails;
  todo: TodoDetails;
  session_search: SessionSearchResultDetails;
  skills_list: SkillsListDetails;
  skill_view: SkillViewResultDetails;
  skill_manage: SkillManageResultDetails;
  browser_navigate: BrowserNavigateDetails;
  browser_snapshot: BrowserSnapshotDetails;
  browser_click: BrowserClickDetails;
  browser_type: BrowserTypeDetails;
  browser_scroll: BrowserScrollDetails;
  browser_back: BrowserBackDetails;
  browser_press: BrowserPressDetails;
  browser_get_images: BrowserGetImagesDetails;
  browser_vision: BrowserVisionDetails;
  browser_console: BrowserConsoleDetails;
}

/** What a built-in tool reports through `ctx.reportProgress` while it runs; tools not named report nothing. */
export interface ToolProgressMap {
  delegate_task: DelegateProgress;
  terminal: TerminalProgress;
  execute_code: ExecuteCodeProgress;
}

/** The built-in tools with typed details (and arguments, and a renderer). */
export type DetailedToolName = keyof ToolDetailsMap;

/** The details type of a tool named `N`: its entry, or `unknown` (opaque) for any other tool. */
export type DetailsOf<N extends string> = N extends DetailedToolName ? ToolDetailsMap[N] : unknown;

/** What a tool named `N` may report while it runs: its entry, `never` for a built-in tool without one, else `unknown`. */
export type ProgressOf<N extends string> = N extends keyof ToolProgressMap ? ToolProgressMap[N] : N extends DetailedToolName ? never : unknown;

const DETAILS_SCHEMAS: { [N in DetailedToolName]: z.ZodType<ToolDetailsMap[N]> } = {
  delegate_task: delegateDetailsSchema,
  web_search: webSearchDetailsSchema,
  web_extract: webExtractDetailsSchema,
  terminal: terminalDetailsSchema,
  execute_code: executeCodeDetailsSchema,
  process: processDetailsSchema,
  read_file: readFileDetailsSchema,
  write_file: writeFileDetailsSchema,
  patch: patchDetailsSchema,
  search_files: searchFilesDetailsSchema,
  vision_analyze: visionDetailsSchema,
  todo: todoDetailsSchema,
  session_search: sessionSearchDetailsSchema,
  skills_list: skillsListDetailsSchema,
  skill_view: skillViewDetailsSchema,
  skill_manage: skillManageDetailsSchema,
  browser_navigate: browserNavigateDetailsSchema,
  browser_snapshot: browserSnapshotDetailsSchema,
  browser_click: browserClickDetailsSchema,
  browser_type: browserTypeDetailsSchema,
  browser_scroll: browserScrollDetailsSchema,
  browser_back: browserBackDetailsSchema,
  browser_press: browserPressDetailsSchema,
  browser_get_images: browserGetImagesDetailsSchema,
  browser_vision: browserVisionDetailsSchema,
  browser_console: browserConsoleDetailsSchema,
};

/** The built-in tool names with typed details, in no particular order. */
export const DETAILED_TOOL_NAMES = Object.keys(DETAILS_SCHEMAS) as DetailedToolName[];

export function isDetailedToolName(name: string): name is DetailedToolName {
  return Object.hasOwn(DETAILS_SCHEMAS, name);
}

const PROGRESS_TOOL_NAMES: { [N in keyof ToolProgressMap]: true } = { delegate_task: true, terminal: true, execute_code: true };

export function isProgressToolName(name: string): name is keyof ToolProgressMap {
  return Object.hasOwn(PROGRESS_TOOL_NAMES, name);
}

/**
 * `value` checked against the details schema of the tool named `name`: the decoded details, or
 * undefined when they do not fit (older or foreign rows) or `value` is undefined. Unknown fields
 * are dropped. Never throws.
 */
export function decodeDetails<N extends DetailedToolName>(name: N, value: unknown): ToolDetailsMap[N] | undefined {
  if (value === undefined) return undefined;
  const schema: z.ZodType<ToolDetailsMap[N]> = DETAILS_SCHEMAS[name];
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
