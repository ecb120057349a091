import { z } from "zod";
import { throwIfAborted } from "../../shared/abort.js";
import { commitEdits } from "../file-edit/commit-edits.js";
import { readForEdit } from "../file-edit/edit-io.js";
import { detectFormat, encodeText } from "../file-edit/text-format.js";
import { diffLabel, unifiedDiff } from "../file-edit/unified-diff.js";
import { fileTracker, staleWarning } from "../file-tracker/file-tracker.js";
import { resolveReadPath } from "../read-file/read-file.js";
import { defineTool, type DescribeContext, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import type { WriteFileDetails, WriteFileResultDetails } from "./details.js";
import { displayFormatRefusal } from "./display-format.js";

export type { WriteFileDetails, WriteFileErrorDetails, WriteFileResultDetails } from "./details.js";

const writeFileParams = z.lazy(() => z.object({
  path: z
    .string()
    .min(1)
    .describe("The file: absolute, relative to the working directory, or ~/…"),
  content: z.string().describe("The complete new content"),
}));

export type WriteFileArgs = z.infer<typeof writeFileParams>;

const DESCRIPTION = [
  "Write a whole file, replacing any existing content; creates parent directories.",
  "For changing part of a file use patch instead. An existing file keeps its line endings (LF or CRLF)",
  "and byte-order mark. Do not include read_file's 'N|' line-number prefixes in content.",
  "The user may be asked to approve the change. Returns JSON with resolved_path, bytes_written and",
  'action ("created", "overwritten" or "unchanged"), plus a warning when the file changed since you read it.',
].join(" ");

/** Title `write: <path as given>`; one absolute location. */
function describeWrite(args: WriteFileArgs, ctx: DescribeContext): ToolDescription {
  return { title: `write: ${args.path}`, locations: [{ path: resolveReadPath(args.path, ctx.cwd) }] };
}

/**
 * write_file, as Hermes has it. Order: refuse read_file-formatted content; read the current file
 * (editor buffer first, see `readForEdit`); skip everything when the content is already there;
 * ask `approveEdit` once (denied → error result, file untouched); write (through
 * `ports.writeTextFile` when present, see `commitEdits`). Errors the model can fix are `isError`
 * results with `{"error": …}`; only cancellation before the write throws.
 */
export const writeFileTool = defineTool({
  name: "write_file",
  description: DESCRIPTION,
  kind: "edit",
  mutating: true,
  params: writeFileParams,
  describe: describeWrite,
  execute: writeFileExecute,
});

async function writeFileExecute(args: WriteFileArgs, ctx: ToolContext): Promise<ToolResult<WriteFileResultDetails>> {
  throwIfAborted(ctx.signal);
  const absolute = resolveReadPath(args.path, ctx.cwd);
  const refusal = displayFormatRefusal(args.content);
  if (refusal) return failure(absolute, `Refusing to write ${absolute}: ${refusal}`);

  const current = await readForEdit(absolute, ctx);
  if (!current.ok) return failure(absolute, current.error);
  const { text: oldText, stamp } = current.file;
  const newText = oldText === null ? args.content : encodeText(args.content, detectFormat(oldText));
  const tracker = fileTracker(ctx.state);
  if (oldText === newText) {
    const details: WriteFileDetails = { path: absolute, oldText, newText, diff: "" };
    return { content: JSON.stringify({ resolved_path: absolute, bytes_written: 0, action: "unchanged" }), details };
  }
  const warning = stamp && tracker.changedSinceSeen(absolute, stamp) ? staleWarning(absolute, "overwrite") : undefined;

  const committed = await commitEdits(ctx, "write_file", [{ path: absolute, oldText, newText }]);
  if (!committed.ok) return failure(absolute, committed.error);
  const output: Record<string, unknown> = {
    resolved_path: absolute,
    bytes_written: Buffer.byteLength(newText, "utf8"),
    action: oldText === null ? "created" : "overwritten",
  };
  if (warning) output.warning = warning;
  const details: WriteFileDetails = {
    path: absolute,
    oldText,
    newText,
    diff: unifiedDiff({ label: diffLabel(absolute, ctx.cwd), oldText, newText }),
  };
  return { content: JSON.stringify(output), details };
}

function failure(absolute: string, message: string): ToolResult<WriteFileResultDetails> {
  return { content: JSON.stringify({ error: message }), details: { path: absolute, error: message }, isError: true };
}
