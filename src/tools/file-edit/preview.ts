import { readFileSync, statSync } from "node:fs";
import { patchModeOf, type PatchArgs } from "../patch/patch.js";
import { fuzzyReplace } from "../patch/engine/replace.js";
import type { FileEdit } from "../ports.js";
import { resolveReadPath } from "../read-file/read-file.js";
import type { WriteFileArgs } from "../write-file/write-file.js";
import { decodeText, detectFormat, encodeText, toBody } from "./text-format.js";

/** Files larger than this are not previewed (the completion still shows the diff). */
const PREVIEW_MAX_BYTES = 1024 * 1024;

/** The file's text now: null when it does not exist, undefined when it cannot be previewed (not a regular file, too big, unreadable). */
function currentText(path: string): string | null | undefined {
  try {
    const stats = statSync(path);
    if (!stats.isFile() || stats.size > PREVIEW_MAX_BYTES) return undefined;
    return readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

/**
 * What a `write_file` or replace-mode `patch` call would change, worked out from the file on disk
 * the way the tool does it (line endings and BOM kept, the patch's fuzzy match), before it runs:
 * for the editor to show an edit that will not be asked about. Undefined when there is nothing to
 * show or it cannot be known up front: a V4A patch, a replacement that does not match or is
 * already there, an unchanged file, a path that is not a regular file or is over 1 MB. The
 * editor's unsaved buffer is not consulted (the tool reads it first, so the completion's diff is
 * what counts). Synchronous; never throws.
 */
export function previewEdits(tool: "write_file", args: WriteFileArgs, cwd: string): FileEdit[] | undefined;
export function previewEdits(tool: "patch", args: PatchArgs, cwd: string): FileEdit[] | undefined;
export function previewEdits(tool: "write_file" | "patch", args: WriteFileArgs | PatchArgs, cwd: string): FileEdit[] | undefined {
  try {
    if (tool === "write_file") {
      const write = args as WriteFileArgs;
      const path = resolveReadPath(write.path, cwd);
      const oldText = currentText(path);
      if (oldText === undefined) return undefined;
      const newText = oldText === null ? write.content : encodeText(write.content, detectFormat(oldText));
      return newText === oldText ? undefined : [{ path, oldText, newText }];
    }
    const patch = args as PatchArgs;
    if (patchModeOf(patch) !== "replace" || patch.path === undefined || patch.old_string === undefined || patch.new_string === undefined) return undefined;
    const path = resolveReadPath(patch.path, cwd);
    const oldText = currentText(path);
    if (typeof oldText !== "string") return undefined;
    const { body, format } = decodeText(oldText);
    const outcome = fuzzyReplace(body, toBody(patch.old_string), toBody(patch.new_string), patch.replace_all ?? false);
    if (!outcome.ok || outcome.alreadyApplied) return undefined;
    const newText = encodeText(outcome.content, format);
    return newText === oldText ? undefined : [{ path, oldText, newText }];
  } catch {
    return undefined;
  }
}
