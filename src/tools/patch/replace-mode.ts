import { commitEdits } from "../file-edit/commit-edits.js";
import { readForEdit } from "../file-edit/edit-io.js";
import { decodeText, encodeText, toBody } from "../file-edit/text-format.js";
import { diffLabel, unifiedDiff } from "../file-edit/unified-diff.js";
import { fileTracker, staleWarning } from "../file-tracker/file-tracker.js";
import { resolveReadPath } from "../read-file/read-file.js";
import { similarFiles } from "../read-file/similar-files.js";
import type { ToolContext, ToolResult } from "../types.js";
import type { PatchResultDetails } from "./details.js";
import { fuzzyReplace } from "./engine/replace.js";
import { patchFailure, patchSuccess } from "./patch-result.js";

export interface ReplaceArgs {
  path?: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
}

/**
 * Replace mode: reads the file (editor buffer first), runs `fuzzyReplace` on its body (BOM
 * removed, CRLF as LF; `old_string` / `new_string` likewise), restores the file's BOM and line
 * endings, asks for approval and writes (`commitEdits`). An edit already present is a success
 * with `replacements: 0` and nothing written or asked. Errors are `isError` results.
 */
export async function executeReplace(args: ReplaceArgs, ctx: ToolContext): Promise<ToolResult<PatchResultDetails>> {
  const missing = (["path", "old_string", "new_string"] as const).filter((key) => args[key] === undefined);
  if (missing.length > 0) {
    return patchFailure(
      "replace",
      `Replace mode needs path, old_string and new_string; missing: ${missing.join(", ")}. ` +
        'For a V4A patch set mode to "patch" and pass the patch text in "patch".',
    );
  }
  const absolute = resolveReadPath(args.path ?? "", ctx.cwd);
  const current = await readForEdit(absolute, ctx);
  if (!current.ok) return patchFailure("replace", current.error, absolute);
  const { text: oldText, stamp } = current.file;
  if (oldText === null) {
    const similar = await similarFiles(absolute);
    const hint = similar.length > 0 ? ` Similar files: ${similar.join(", ")}.` : "";
    return patchFailure("replace", `File not found: ${absolute}.${hint} To create a file use write_file.`, absolute);
  }

  const { body, format } = decodeText(oldText);
  const outcome = fuzzyReplace(body, toBody(args.old_string ?? ""), toBody(args.new_string ?? ""), args.replace_all ?? false);
  if (!outcome.ok) return patchFailure("replace", `${absolute}: ${outcome.error}`, absolute);
  const newText = encodeText(outcome.content, format);
  if (outcome.alreadyApplied || newText === oldText) {
    const output = { path: absolute, replacements: 0, message: "No change: the edit is already present in the file." };
    return patchSuccess("replace", output, [], "");
  }
  const tracker = fileTracker(ctx.state);
  const warning = stamp && tracker.changedSinceSeen(absolute, stamp) ? staleWarning(absolute, "edit") : undefined;
  const edit = { path: absolute, oldText, newText };
  const committed = await commitEdits(ctx, "patch", [edit]);
  if (!committed.ok) return patchFailure("replace", committed.error, absolute);

  const output: Record<string, unknown> = {
    path: absolute,
    replacements: outcome.count,
    lines: outcome.lines,
    strategy: outcome.strategy,
  };
  if (warning) output.warning = warning;
  return patchSuccess("replace", output, [edit], unifiedDiff({ label: diffLabel(absolute, ctx.cwd), oldText, newText }));
}
