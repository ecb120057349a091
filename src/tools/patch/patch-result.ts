import { truncateForDisplay } from "../../shared/truncate.js";
import type { FileEdit } from "../ports.js";
import type { ToolResult } from "../types.js";
import type { PatchDetails, PatchErrorDetails, PatchMode, PatchResultDetails } from "./details.js";

export type { PatchDetails, PatchErrorDetails, PatchMode, PatchResultDetails } from "./details.js";

/** The model's copy of a diff is cut here (the editor gets it whole in `details`). */
export const MODEL_DIFF_CHARS = 20_000;

/** An `isError` result: `{"error": message}` for the model, `PatchErrorDetails` for the editor. */
export function patchFailure(mode: PatchMode, message: string, path?: string): ToolResult<PatchResultDetails> {
  const details: PatchErrorDetails = path === undefined ? { mode, error: message } : { mode, error: message, path };
  return { content: JSON.stringify({ error: message }), details, isError: true };
}

/** A success result: `output` plus the (possibly cut) diff for the model, `PatchDetails` for the editor. */
export function patchSuccess(mode: PatchMode, output: Record<string, unknown>, files: FileEdit[], diff: string): ToolResult<PatchResultDetails> {
  const content = { success: true, ...output, ...(diff === "" ? {} : { diff: truncateForDisplay(diff, MODEL_DIFF_CHARS) }) };
  const details: PatchDetails = { mode, files, diff };
  return { content: JSON.stringify(content), details };
}
