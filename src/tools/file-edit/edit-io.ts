import type { Stats } from "node:fs";
import { mkdir, open, readFile, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../../shared/errors.js";
import { hashText, type FileStamp } from "../file-tracker/file-tracker.js";
import { askPort, type FileEdit } from "../ports.js";
import { BINARY_SAMPLE_BYTES, binaryMessage, binaryTypeByContent, isDevicePath } from "../read-file/binary.js";
import type { ToolContext } from "../types.js";

/**
 * The file I/O of the edit tools (write_file, patch): reading a file's current text before an
 * edit, asking for approval, writing and deleting. Everything the model can fix comes back as
 * `{ ok: false, error }`; only the write and delete helpers throw, with the file system's error.
 */

/** A file as it is before an edit. */
export interface CurrentFile {
  /** Absolute path. */
  path: string;
  /** The text exactly as stored (BOM and line endings included); null when the file does not exist. */
  text: string | null;
  /** What the file is now, for stale checks; null when it does not exist. */
  stamp: FileStamp | null;
}

export type ReadForEdit = { ok: true; file: CurrentFile } | { ok: false; error: string };

/**
 * Reads the current text of `absolute` before it is edited. Through `ctx.ports.readTextFile` when
 * that port exists (the editor's buffer, unsaved changes included), falling back to disk when the
 * port fails; a file found in neither place does not exist (`text: null`). Devices, directories,
 * other non-regular files and binary files are refused: the edit tools write text files only.
 */
export async function readForEdit(absolute: string, ctx: ToolContext): Promise<ReadForEdit> {
  if (isDevicePath(absolute)) {
    return { ok: false, error: `Cannot edit ${absolute}: device and process file-descriptor paths are not files` };
  }
  let stats: Stats | undefined;
  try {
    stats = await stat(absolute);
  } catch (error) {
    if (!isNotFound(error)) return { ok: false, error: `Cannot read ${absolute}: ${errorMessage(error)}` };
  }
  if (stats?.isDirectory()) return { ok: false, error: `${absolute} is a directory, not a file` };
  if (stats && !stats.isFile()) {
    return { ok: false, error: `Cannot edit ${absolute}: not a regular file (device, FIFO or socket)` };
  }
  if (stats) {
    const binary = await binaryType(absolute);
    if (binary) {
      return { ok: false, error: `${binaryMessage(binary, stats.size)}; the edit tools change text files only` };
    }
  }
  let text: string | null = null;
  const port = ctx.ports.readTextFile;
  if (port) {
    try {
      text = await port(absolute);
    } catch {
      text = null;
    }
  }
  if (text === null && stats) {
    try {
      text = await readFile(absolute, { encoding: "utf8", signal: ctx.signal });
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return { ok: false, error: `Cannot read ${absolute}: ${errorMessage(error)}` };
    }
  }
  const stamp = text === null ? null : { mtimeMs: stats?.mtimeMs, size: stats?.size, hash: hashText(text) };
  return { ok: true, file: { path: absolute, text, stamp } };
}

/**
 * Writes `text` to `absolute`, creating missing parent directories first, through
 * `ctx.ports.writeTextFile` when that port exists (so the editor's buffers stay in sync), else to
 * disk. Returns the stamp of what was written. Throws the file system's or the port's error.
 */
export async function writeForEdit(absolute: string, text: string, ctx: ToolContext): Promise<FileStamp> {
  await mkdir(path.dirname(absolute), { recursive: true });
  const port = ctx.ports.writeTextFile;
  if (port) await port(absolute, text);
  else await writeFile(absolute, text, "utf8");
  const stats = await stat(absolute).catch(() => undefined);
  return { mtimeMs: stats?.mtimeMs, size: stats?.size, hash: hashText(text) };
}

/** Deletes the file at `absolute` from disk (there is no editor port for deletes). Throws on failure. */
export async function deleteForEdit(absolute: string): Promise<void> {
  await unlink(absolute);
}

/**
 * Asks once for every edit of one tool call (`ctx.ports.approveEdit`); fails closed, so a missing
 * port, an error or anything but an explicit allow is a refusal.
 */
export function approveEdits(ctx: ToolContext, toolName: string, edits: FileEdit[]): Promise<boolean> {
  return askPort(ctx.ports.approveEdit, { callId: ctx.callId, toolName, edits });
}

/** The message the model gets when the user declined an edit ("Edit denied: the user declined …"). */
export function declinedMessage(paths: readonly string[]): string {
  const what = paths.length === 1 ? `the edit to ${paths[0]}` : `the edits to ${paths.join(", ")}`;
  const files = paths.length === 1 ? "The file is" : "The files are";
  return (
    `Edit denied: the user declined ${what}. ${files} unchanged. ` +
    "Do not retry this edit or work around it; ask the user how they want to proceed."
  );
}

/** The type of binary content at `absolute`, or undefined when its first bytes look like text. */
async function binaryType(absolute: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(absolute, "r");
    const buffer = Buffer.alloc(BINARY_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_SAMPLE_BYTES, 0);
    return binaryTypeByContent(buffer.subarray(0, bytesRead));
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
