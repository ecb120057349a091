import type { ToolStartEvent } from "../agent/events.js";
import { redactDetails } from "../agent/redact-result.js";
import { previewEdits } from "../tools/file-edit/preview.js";
import type { FileEdit } from "../tools/ports.js";
import type { SessionApprovals } from "./approvals.js";

/**
 * `event` with `edits` set when it starts a `write_file` or replace-mode `patch` whose changes the
 * session's mode approves without asking (`SessionApprovals.autoApproves`, the same check the
 * edit itself gets): the editor then shows the diff on the tool call's start, as Hermes does,
 * since no approval card will. Secrets in the previewed text are masked like any tool details.
 * Any other event comes back as it is. Reads the target file synchronously (at most 1 MB); never
 * throws.
 */
export function withAutoApprovedEdits(event: ToolStartEvent, approvals: Pick<SessionApprovals, "autoApproves" | "mode">, cwd: string): ToolStartEvent {
  if (approvals.mode !== "accept_edits" && approvals.mode !== "dont_ask") return event;
  let edits: FileEdit[] | undefined;
  if (event.tool === "write_file" && event.input) edits = previewEdits("write_file", event.input, cwd);
  else if (event.tool === "patch" && event.input) edits = previewEdits("patch", event.input, cwd);
  if (!edits || !approvals.autoApproves(edits.map((edit) => edit.path))) return event;
  return { ...event, edits: redactDetails(edits) };
}
