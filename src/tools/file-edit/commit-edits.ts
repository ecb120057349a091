import { throwIfAborted } from "../../shared/abort.js";
import { errorMessage } from "../../shared/errors.js";
import { fileTracker } from "../file-tracker/file-tracker.js";
import type { FileEdit } from "../ports.js";
import type { ToolContext } from "../types.js";
import { approveEdits, declinedMessage, deleteForEdit, writeForEdit } from "./edit-io.js";

export type CommitOutcome = { ok: true } | { ok: false; error: string };

/**
 * Carries out the edits of one tool call: asks `approveEdit` once for all of them (a refusal
 * returns the "user declined" error and changes nothing), then lets `checkpoint` snapshot the
 * workspace (when the session keeps checkpoints; its failure never stops the edit), then writes
 * every new content in order (creating parent directories), then deletes deleted files and move
 * sources. Each write and delete is recorded in the session's file tracker. Cancellation is honoured up to the first
 * write (an AbortError is thrown); once writing has begun it runs to the end, so a call is never
 * left half-applied by a cancel. An I/O failure stops there and the error names what was already
 * done.
 */
export async function commitEdits(ctx: ToolContext, toolName: string, edits: FileEdit[]): Promise<CommitOutcome> {
  throwIfAborted(ctx.signal);
  if (!(await approveEdits(ctx, toolName, edits))) {
    return { ok: false, error: declinedMessage(edits.map((edit) => edit.path)) };
  }
  const paths = edits.flatMap((edit) => (edit.fromPath ? [edit.path, edit.fromPath] : [edit.path]));
  await ctx.ports.checkpoint?.({ toolName, paths }, ctx.signal).catch(() => undefined);
  throwIfAborted(ctx.signal);
  const tracker = fileTracker(ctx.state);
  const done: string[] = [];
  let target = "";
  try {
    for (const edit of edits) {
      if (edit.newText === null) continue;
      target = edit.path;
      tracker.recordWrite(edit.path, await writeForEdit(edit.path, edit.newText, ctx));
      done.push(`wrote ${edit.path}`);
    }
    for (const edit of edits) {
      const gone = edit.newText === null ? edit.path : edit.fromPath;
      if (gone === undefined || (edit.newText !== null && gone === edit.path)) continue;
      target = gone;
      await deleteForEdit(gone).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      tracker.forget(gone);
      done.push(`deleted ${gone}`);
    }
  } catch (error) {
    const partial =
      done.length > 0
        ? ` Already done: ${done.join("; ")}. Check the files (e.g. with git diff) before retrying.`
        : " No file was changed.";
    return { ok: false, error: `Failed to change ${target}: ${errorMessage(error)}.${partial}` };
  }
  return { ok: true };
}
