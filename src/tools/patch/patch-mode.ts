import { throwIfAborted } from "../../shared/abort.js";
import { commitEdits } from "../file-edit/commit-edits.js";
import { readForEdit, type CurrentFile } from "../file-edit/edit-io.js";
import { diffLabel, unifiedDiffs } from "../file-edit/unified-diff.js";
import { fileTracker, staleWarning } from "../file-tracker/file-tracker.js";
import type { FileEdit } from "../ports.js";
import { resolveReadPath } from "../read-file/read-file.js";
import type { ToolContext, ToolResult } from "../types.js";
import type { PatchResultDetails } from "./details.js";
import { applyV4aPatch, type PatchChange } from "./engine/apply-v4a.js";
import { V4A_FORMAT_HELP, parseV4aPatch, patchPaths } from "./engine/parse-v4a.js";
import { patchFailure, patchSuccess } from "./patch-result.js";

const FAILED = "Patch validation failed (no files were modified):";

function bullets(errors: readonly string[]): string {
  return errors.map((error) => `  • ${error}`).join("\n");
}

/**
 * Patch mode: parses the V4A text, reads every file it names (editor buffer first), computes all
 * new contents in memory (`applyV4aPatch`), and only when every operation validates asks for one
 * approval covering every file and writes (`commitEdits`). Any parse or validation error is an
 * `isError` result and nothing is written. Paths resolve against the session cwd.
 */
export async function executePatchMode(patchText: string | undefined, ctx: ToolContext): Promise<ToolResult<PatchResultDetails>> {
  if (patchText === undefined || patchText.trim() === "") {
    return patchFailure("patch", `Patch mode needs the patch text in "patch".\n${V4A_FORMAT_HELP}`);
  }
  const parsed = parseV4aPatch(patchText);
  if (!parsed.ok) return patchFailure("patch", parsed.error);

  const resolve = (path: string): string => resolveReadPath(path, ctx.cwd);
  const files = new Map<string, CurrentFile>();
  const readErrors: string[] = [];
  for (const path of patchPaths(parsed.ops)) {
    throwIfAborted(ctx.signal);
    const key = resolve(path);
    if (files.has(key)) continue;
    const read = await readForEdit(key, ctx);
    if (read.ok) files.set(key, read.file);
    else readErrors.push(read.error);
  }
  if (readErrors.length > 0) return patchFailure("patch", `${FAILED}\n${bullets(readErrors)}`);

  const applied = applyV4aPatch(parsed.ops, { resolve, read: (key) => files.get(key)?.text ?? null });
  if (!applied.ok) return patchFailure("patch", `${FAILED}\n${bullets(applied.errors)}`);
  if (applied.changes.length === 0) {
    return patchSuccess("patch", { message: "No change: every hunk of the patch is already present in the files." }, [], "");
  }

  const tracker = fileTracker(ctx.state);
  const warnings: string[] = [];
  for (const change of applied.changes) {
    const source = change.fromPath ?? change.path;
    const stamp = files.get(source)?.stamp;
    if (change.oldText !== null && stamp && tracker.changedSinceSeen(source, stamp)) warnings.push(staleWarning(source, "edit"));
  }
  const edits = applied.changes.map(toFileEdit);
  const committed = await commitEdits(ctx, "patch", edits);
  if (!committed.ok) return patchFailure("patch", committed.error);

  const diff = unifiedDiffs(
    applied.changes.map((change) => ({
      label: diffLabel(change.path, ctx.cwd),
      oldText: change.oldText,
      newText: change.newText,
      ...(change.fromPath === undefined ? {} : { fromLabel: diffLabel(change.fromPath, ctx.cwd) }),
    })),
  );
  const output: Record<string, unknown> = summarize(applied.changes);
  if (applied.alreadyAppliedHunks > 0) output.already_applied_hunks = applied.alreadyAppliedHunks;
  if (warnings.length > 0) output.warnings = warnings;
  return patchSuccess("patch", output, edits, diff);
}

function toFileEdit(change: PatchChange): FileEdit {
  const edit: FileEdit = { path: change.path, oldText: change.oldText, newText: change.newText };
  if (change.fromPath !== undefined) edit.fromPath = change.fromPath;
  return edit;
}

/** `files_created` / `files_modified` / `files_deleted` / `files_moved` (`a -> b`), absolute paths, empty lists left out. */
function summarize(changes: readonly PatchChange[]): Record<string, string[]> {
  const lists: Record<string, string[]> = { files_created: [], files_modified: [], files_deleted: [], files_moved: [] };
  for (const change of changes) {
    if (change.fromPath !== undefined) lists.files_moved?.push(`${change.fromPath} -> ${change.path}`);
    else if (change.oldText === null) lists.files_created?.push(change.path);
    else if (change.newText === null) lists.files_deleted?.push(change.path);
    else lists.files_modified?.push(change.path);
  }
  return Object.fromEntries(Object.entries(lists).filter(([, list]) => list.length > 0));
}
