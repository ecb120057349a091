import { createReadStream, type Stats } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { secretFileReason } from "../../config/secret-files.js";
import { isAbortError, throwIfAborted } from "../../shared/abort.js";
import { errorMessage } from "../../shared/errors.js";
import { fileTracker, hashText, type FileStamp } from "../file-tracker/file-tracker.js";
import { defineTool, type DescribeContext, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import {
  BINARY_SAMPLE_BYTES,
  binaryMessage,
  binaryTypeByContent,
  binaryTypeByExtension,
  isDevicePath,
} from "./binary.js";
import type { ReadFileDetails, ReadFileResultDetails } from "./details.js";
import { collectLines, type LineWindow } from "./lines.js";
import { similarFiles } from "./similar-files.js";

export const READ_FILE_DEFAULT_LIMIT = 500;
export const READ_FILE_MAX_LIMIT = 2000;
/** Most characters of numbered text one read may return; larger selections are an error. */
export const READ_FILE_MAX_CHARS = 100_000;
/** Longer lines are cut and marked `... [truncated]`. */
export const READ_FILE_MAX_LINE_CHARS = 2000;
/** Files larger than this are streamed line by line instead of read whole. */
export const READ_FILE_STREAM_THRESHOLD = 10 * 1024 * 1024;

/** What the model gets instead of the content when it re-reads a range that has not changed. */
export const UNCHANGED_MESSAGE =
  "File unchanged since last read. The content from the earlier read_file result in this conversation is still current — refer to that instead of re-reading.";

export type { ReadFileDetails, ReadFileErrorDetails, ReadFileResultDetails, ReadFileUnchangedDetails } from "./details.js";

const readFileParams = z.lazy(() => z.object({
  path: z
    .string()
    .min(1)
    .describe("The file: absolute, relative to the working directory, or ~/…"),
  offset: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe("First line to read (1-based, default 1)"),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Lines to read (default ${READ_FILE_DEFAULT_LIMIT}, max ${READ_FILE_MAX_LIMIT})`),
}));

export type ReadFileArgs = z.infer<typeof readFileParams>;

const DESCRIPTION = [
  "Read a text file with line numbers and pagination; use it instead of cat, head or tail.",
  'Output is JSON: "content" holds lines as "LINE_NUMBER|TEXT", plus total_lines, file_size, truncated and,',
  'when more lines follow, a "hint" with the offset to continue from.',
  `Reads ${READ_FILE_DEFAULT_LIMIT} lines by default, at most ${READ_FILE_MAX_LIMIT}; use offset and limit for large files.`,
  `Lines over ${READ_FILE_MAX_LINE_CHARS} characters are cut. Suggests similar file names when the file is not found.`,
  "Cannot read binary files, images, devices or credential files (HERMES_HOME/.env, /proc/*/environ).",
].join(" ");

/**
 * Expands `~` / `~/…` to the home directory and resolves anything else against `cwd`.
 * The result is absolute and normalized.
 */
export function resolveReadPath(filePath: string, cwd: string): string {
  if (filePath === "~") return os.homedir();
  if (filePath.startsWith("~/")) return path.join(os.homedir(), filePath.slice(2));
  return path.resolve(cwd, filePath);
}

/** Title `read: <path as given>`; one absolute location, with `line` only when an offset was given. */
function describeRead(args: ReadFileArgs, ctx: DescribeContext): ToolDescription {
  const location = resolveReadPath(args.path, ctx.cwd);
  return {
    title: `read: ${args.path}`,
    locations: [args.offset === undefined ? { path: location } : { path: location, line: args.offset }],
  };
}

/**
 * read_file, as Hermes has it. Reads from the editor through `ctx.ports.readTextFile` when that port
 * exists (unsaved buffers), else from disk; device, directory and binary checks always run on disk
 * first when the file exists there. Credential files (`$HERMES_HOME/.env`, `auth.json`, any
 * `/proc/<pid>/environ`; see `secretFileReason`) are refused before anything is read, through
 * either source. Every user error is an `isError` result with JSON content
 * `{"error": …}`; only cancellation (an AbortError, before or during the read) is thrown.
 * Successful reads are recorded in the session's file tracker; re-reading the same range
 * (offset and effective limit) of a provably unchanged file returns the short "unchanged" stub
 * (`{"status":"unchanged","message":…,"dedup":true}`) instead of the content. A write through
 * write_file or patch, or `resetReadDedup`, makes the next read return full content again.
 */
export const readFileTool = defineTool({
  name: "read_file",
  description: DESCRIPTION,
  kind: "read",
  mutating: false,
  params: readFileParams,
  describe: describeRead,
  execute: readFileExecute,
});

async function readFileExecute(args: ReadFileArgs, ctx: ToolContext): Promise<ToolResult<ReadFileResultDetails>> {
  throwIfAborted(ctx.signal);
  const offset = args.offset ?? 1;
  const limit = Math.min(args.limit ?? READ_FILE_DEFAULT_LIMIT, READ_FILE_MAX_LIMIT);
  const absolute = resolveReadPath(args.path, ctx.cwd);

  const secret = await secretFileReason(absolute, ctx.hermesHome);
  if (secret) return failure(absolute, `Refused to read ${args.path}: ${secret}. Its values are never shown to the model.`);
  throwIfAborted(ctx.signal);
  if (isDevicePath(absolute)) {
    return failure(absolute, `Cannot read ${absolute}: device and process file-descriptor paths are not readable files`);
  }
  let stats: Stats | undefined;
  try {
    stats = await stat(absolute);
  } catch (error) {
    if (!isNotFound(error)) return failure(absolute, `Cannot read ${absolute}: ${errorMessage(error)}`);
  }
  if (stats) {
    const refusal = await refuseNonText(absolute, stats);
    if (refusal) return failure(absolute, refusal);
  }
  throwIfAborted(ctx.signal);

  let window: LineWindow;
  let fileSize: number;
  /** The whole text, when it was read whole (not streamed); hashed for the file tracker. */
  let wholeText: string | undefined;
  try {
    const readTextFile = ctx.ports.readTextFile;
    if (readTextFile) {
      let text: string;
      try {
        text = await readTextFile(absolute);
      } catch (error) {
        if (!stats && !isAbortError(error)) return notFound(absolute);
        throw error;
      }
      throwIfAborted(ctx.signal);
      wholeText = text;
      fileSize = Buffer.byteLength(text, "utf8");
      if (!stats && text.slice(0, BINARY_SAMPLE_BYTES).includes("\0")) {
        return failure(absolute, binaryMessage("binary data", fileSize));
      }
      window = await collectLines([text], offset, limit, READ_FILE_MAX_LINE_CHARS, ctx.signal);
    } else if (!stats) {
      return notFound(absolute);
    } else {
      fileSize = stats.size;
      if (stats.size <= READ_FILE_STREAM_THRESHOLD) {
        wholeText = await readFile(absolute, { encoding: "utf8", signal: ctx.signal });
      }
      const chunks =
        wholeText !== undefined ? [wholeText] : createReadStream(absolute, { encoding: "utf8", signal: ctx.signal });
      window = await collectLines(chunks, offset, limit, READ_FILE_MAX_LINE_CHARS, ctx.signal);
    }
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error;
    return failure(absolute, `Cannot read ${absolute}: ${errorMessage(error)}`);
  }
  const stamp: FileStamp = {
    mtimeMs: stats?.mtimeMs,
    size: stats?.size,
    hash: wholeText === undefined ? undefined : hashText(wholeText),
  };
  const tracker = fileTracker(ctx.state);
  if (tracker.isUnchangedRead(absolute, offset, limit, stamp)) {
    const stub = { status: "unchanged", message: UNCHANGED_MESSAGE, dedup: true };
    return { content: JSON.stringify(stub), details: { path: absolute, offset, limit, unchanged: true } };
  }
  const result = formatWindow(absolute, offset, limit, fileSize, window);
  if (!result.isError) tracker.recordRead(absolute, offset, limit, stamp);
  return result;
}

/** Why a file that exists on disk must not be read as text, or undefined when it may. */
async function refuseNonText(absolute: string, stats: Stats): Promise<string | undefined> {
  if (stats.isDirectory()) {
    return `${absolute} is a directory, not a file. Use search_files to list or find files in it.`;
  }
  if (!stats.isFile()) {
    return `Cannot read ${absolute}: not a regular file (device, FIFO or socket)`;
  }
  const byExtension = binaryTypeByExtension(absolute);
  if (byExtension) return binaryMessage(byExtension, stats.size);
  const sample = await readSample(absolute);
  const byContent = sample ? binaryTypeByContent(sample) : undefined;
  return byContent ? binaryMessage(byContent, stats.size) : undefined;
}

/** The first bytes of the file, or undefined when it cannot be opened (the read reports that). */
async function readSample(absolute: string): Promise<Uint8Array | undefined> {
  let handle;
  try {
    handle = await open(absolute, "r");
    const buffer = Buffer.alloc(BINARY_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_SAMPLE_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

function formatWindow(
  absolute: string,
  offset: number,
  limit: number,
  fileSize: number,
  window: LineWindow,
): ToolResult<ReadFileResultDetails> {
  const { lines, totalLines } = window;
  const numberedLines = lines.map((line, i) => `${offset + i}|${line}`);
  const content = numberedLines.join("\n");
  const shownEnd = offset + lines.length - 1;

  if (content.length > READ_FILE_MAX_CHARS) {
    let fit = 0;
    let chars = 0;
    for (const line of numberedLines) {
      chars += line.length + 1;
      if (chars > READ_FILE_MAX_CHARS) break;
      fit++;
    }
    return failure(
      absolute,
      `Reading lines ${offset}-${shownEnd} of ${absolute} would return ${content.length} characters, ` +
        `over the ${READ_FILE_MAX_CHARS}-character limit for one read. ` +
        `Use offset and limit to read a smaller range, e.g. offset=${offset} limit=${Math.max(1, fit)}.`,
    );
  }

  const endLine = offset + limit - 1;
  const truncated = totalLines > endLine;
  let hint: string | undefined;
  if (truncated) {
    hint = `Use offset=${endLine + 1} to continue reading (showing ${offset}-${endLine} of ${totalLines} lines)`;
  } else if (totalLines === 0) {
    hint = "File is empty (0 lines)";
  } else if (offset > totalLines) {
    hint = `Offset ${offset} is past the end of the file, which has ${totalLines} lines`;
  }
  const output: Record<string, unknown> = { content, total_lines: totalLines, file_size: fileSize, truncated };
  if (hint !== undefined) output.hint = hint;
  const details: ReadFileDetails = { path: absolute, offset, limit, totalLines, content };
  return { content: JSON.stringify(output), details };
}

async function notFound(absolute: string): Promise<ToolResult<ReadFileResultDetails>> {
  const similar = await similarFiles(absolute);
  const extra = similar.length > 0 ? { similar_files: similar } : {};
  return failure(absolute, `File not found: ${absolute}`, extra);
}

function failure(absolute: string, message: string, extra: Record<string, unknown> = {}): ToolResult<ReadFileResultDetails> {
  return {
    content: JSON.stringify({ error: message, ...extra }),
    details: { path: absolute, error: message },
    isError: true,
  };
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
