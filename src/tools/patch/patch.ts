import { z } from "zod";
import { throwIfAborted } from "../../shared/abort.js";
import { resolveReadPath } from "../read-file/read-file.js";
import { defineTool, type DescribeContext, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import { scanPatchPaths } from "./engine/parse-v4a.js";
import { executePatchMode } from "./patch-mode.js";
import type { PatchMode, PatchResultDetails } from "./details.js";
import { executeReplace } from "./replace-mode.js";

export type { PatchDetails, PatchErrorDetails, PatchMode, PatchResultDetails } from "./details.js";

const patchParams = z.lazy(() => z.object({
  mode: z.enum(["replace", "patch"]).optional().describe('"replace" (default): replace old_string in path. "patch": apply a V4A patch to one or more files.'),
  path: z.string().min(1).optional().describe("replace: the file to edit (absolute, relative to the working directory, or ~/…)"),
  old_string: z.string().optional().describe("replace: the text to find, copied from the file with enough context to be unique"),
  new_string: z.string().optional().describe('replace: the replacement text ("" deletes old_string)'),
  replace_all: z.boolean().optional().describe("replace: replace every match instead of requiring exactly one (default false)"),
  patch: z.string().optional().describe("patch: the V4A text, '*** Begin Patch' to '*** End Patch'"),
}));

export type PatchArgs = z.infer<typeof patchParams>;

const DESCRIPTION = [
  "Edit files. Replace mode (default): path, old_string, new_string, replace_all. Finds old_string even with",
  "small whitespace, indentation, escaping or typographic-quote differences; it must match exactly one place",
  "unless replace_all is true. Include a few lines of context; an edit already present is reported as a no-op.",
  'Patch mode (mode "patch", patch): a V4A patch that can change several files at once:',
  "'*** Begin Patch', then '*** Update File: path' with hunks ('@@ anchor line' optional, ' ' context,",
  "'-' removed, '+' added lines), '*** Add File: path' with '+' lines, '*** Delete File: path',",
  "'*** Move File: old -> new', and finally '*** End Patch'. Unified diffs (--- / +++ / @@ -1,3 +1,3 @@) are",
  "not accepted. Every hunk is checked before anything is written: if one fails, no file changes.",
  "The user may be asked to approve the change. Results include a unified diff.",
].join(" ");

/** The mode a call runs in: as given, else "patch" when only `patch` text came, else "replace". */
export function patchModeOf(args: PatchArgs): PatchMode {
  if (args.mode) return args.mode;
  return args.patch !== undefined && args.old_string === undefined ? "patch" : "replace";
}

/**
 * Title `patch (replace): <path>`, or `patch (patch): <first file of the patch>` (`patch (patch)`
 * when none can be read); locations are the absolute paths of every file named.
 */
function describePatch(args: PatchArgs, ctx: DescribeContext): ToolDescription {
  const mode = patchModeOf(args);
  const paths = mode === "replace" ? (args.path ? [args.path] : []) : scanPatchPaths(args.patch ?? "");
  const first = paths[0];
  return {
    title: first === undefined ? `patch (${mode})` : `patch (${mode}): ${first}`,
    locations: paths.map((path) => ({ path: resolveReadPath(path, ctx.cwd) })),
  };
}

/**
 * patch, as Hermes has it, in two modes (see `executeReplace` and `executePatchMode`). Both ask
 * `approveEdit` once before writing anything; a denial leaves every file untouched. Errors the
 * model can fix are `isError` results with `{"error": …}`; only cancellation before the first
 * write throws.
 */
export const patchTool = defineTool({
  name: "patch",
  description: DESCRIPTION,
  kind: "edit",
  mutating: true,
  params: patchParams,
  describe: describePatch,
  execute: async (args: PatchArgs, ctx: ToolContext): Promise<ToolResult<PatchResultDetails>> => {
    throwIfAborted(ctx.signal);
    return patchModeOf(args) === "patch" ? executePatchMode(args.patch, ctx) : executeReplace(args, ctx);
  },
});
