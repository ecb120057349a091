import { truncateForDisplay } from "../../shared/truncate.js";
import type { FileEdit } from "../ports.js";
import type { ToolResult } from "../types.js";

export type PatchMode = "replace" | "patch";

/**
 * What the editor gets from a successful patch call: every file's whole content before and after
 * (a move has `fromPath`; a deletion has `newText: null`; a creation `oldText: null`) and one
 * unified diff of all of them. `files` is empty when nothing needed changing. Failures carry
 * `PatchErrorDetails` instead.
 */
export interface PatchDetails {
  mode: PatchMode;
  files: FileEdit[];
  diff: string;
}

export interface PatchErrorDetails {
  mode: PatchMode;
  error: string;
  /** The file of a replace-mode call. */
  path?: string;
}

/** The model's copy of a diff is cut here (the editor gets it whole in `details`). */
export const MODEL_DIFF_CHARS = 20_000;

/** An `isError` result: `{"error": message}` for the model, `PatchErrorDetails` for the editor. */
export function patchFailure(mode: PatchMode, message: string, path?: string): ToolResult {
  const details: PatchErrorDetails = path === undefined ? { mode, error: message } : { mode, error: message, path };
  return { content: JSON.stringify({ error: message }), details, isError: true };
}

/** A success result: `output` plus the (possibly cut) diff for the model, `PatchDetails` for the editor. */
export function patchSuccess(mode: PatchMode, output: Record<string, unknown>, files: FileEdit[], diff: string): ToolResult {
  const content = { success: true, ...output, ...(diff === "" ? {} : { diff: truncateForDisplay(diff, MODEL_DIFF_CHARS) }) };
  const details: PatchDetails = { mode, files, diff };
  return { content: JSON.stringify(content), details };
}
