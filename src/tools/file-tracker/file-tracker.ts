import { createHash } from "node:crypto";
import type { ToolSessionState } from "../session-state.js";

/**
 * What the agent last knew of a file. Any field may be missing (a streamed read has no hash, a
 * file written through the editor may not be on disk yet); comparisons only use what both sides have.
 */
export interface FileStamp {
  /** Modification time on disk, in ms. */
  mtimeMs?: number;
  /** Size on disk, in bytes. */
  size?: number;
  /** sha256 of the text the agent saw or wrote (`hashText`). */
  hash?: string;
}

/** One line range the agent has read, with the stamp the file had then. */
export interface TrackedRead {
  offset: number;
  limit: number;
  stamp: FileStamp;
}

interface TrackedFile {
  /** The file as the agent last saw it: after its last read or its own last write. */
  stamp: FileStamp;
  /** Ranges read since the file last changed through the agent, by `offset:limit`. */
  reads: Map<string, TrackedRead>;
}

/** sha256 hex of a text, as stamps use it. */
export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Whether two stamps describe the same file content: by hash when both have one, else by mtime and
 * size when both have them. `undefined` means the stamps cannot tell.
 */
export function sameStamp(a: FileStamp, b: FileStamp): boolean | undefined {
  if (a.hash !== undefined && b.hash !== undefined) return a.hash === b.hash;
  if (a.mtimeMs !== undefined && b.mtimeMs !== undefined && a.size !== undefined && b.size !== undefined) {
    return a.mtimeMs === b.mtimeMs && a.size === b.size;
  }
  return undefined;
}

/**
 * Per-session record of the files the agent read and wrote, keyed by absolute path. Drives
 * read_file's "unchanged since last read" stub and the stale-write warnings of write_file and
 * patch. Synchronous and in memory; it never touches the file system itself.
 */
export class FileTracker {
  private readonly files = new Map<string, TrackedFile>();
  private readonly writes = new Set<string>();

  /** Records a successful read of lines `offset … offset + limit - 1` of `path`. */
  recordRead(path: string, offset: number, limit: number, stamp: FileStamp): void {
    const file = this.entry(path, stamp);
    file.stamp = stamp;
    file.reads.set(rangeKey(offset, limit), { offset, limit, stamp });
  }

  /**
   * True only when this exact range was read before and the file is provably unchanged since
   * (`sameStamp` is true); a read that cannot be compared is never deduplicated.
   */
  isUnchangedRead(path: string, offset: number, limit: number, stamp: FileStamp): boolean {
    const previous = this.files.get(path)?.reads.get(rangeKey(offset, limit));
    return previous !== undefined && sameStamp(previous.stamp, stamp) === true;
  }

  /** Records that the agent wrote `path`: its stamp becomes the known one and earlier reads stop deduplicating. */
  recordWrite(path: string, stamp: FileStamp): void {
    this.writes.add(path);
    const file = this.entry(path, stamp);
    file.stamp = stamp;
    file.reads.clear();
  }

  /** Every path the agent wrote in this session, moved or deleted ones included. */
  written(): ReadonlySet<string> {
    return this.writes;
  }

  /** Forgets a file the agent deleted or moved away. */
  forget(path: string): void {
    this.files.delete(path);
  }

  /** The stamp of `path` as the agent last saw it, or undefined when it never read or wrote it. */
  known(path: string): FileStamp | undefined {
    return this.files.get(path)?.stamp;
  }

  /**
   * True when the agent has seen `path` and the file now provably differs from what it saw
   * (changed by the user, another process or an editor buffer). Unknown files are never stale.
   */
  changedSinceSeen(path: string, current: FileStamp): boolean {
    const known = this.known(path);
    return known !== undefined && sameStamp(known, current) === false;
  }

  /** Drops every recorded read range (e.g. after context compression), keeping stamps for stale checks. */
  clearReads(): void {
    for (const file of this.files.values()) file.reads.clear();
  }

  private entry(path: string, stamp: FileStamp): TrackedFile {
    let file = this.files.get(path);
    if (!file) {
      file = { stamp, reads: new Map() };
      this.files.set(path, file);
    }
    return file;
  }
}

function rangeKey(offset: number, limit: number): string {
  return `${offset}:${limit}`;
}

const TRACKER_KEY = Symbol("file-tracker");

/** The session's file tracker, created on first use. */
export function fileTracker(state: ToolSessionState): FileTracker {
  return state.get(TRACKER_KEY, () => new FileTracker());
}

/**
 * Forgets every read range of the session so the next read_file returns full content again.
 * The runtime calls this after context compression removed the earlier results from the history.
 */
export function resetReadDedup(state: ToolSessionState): void {
  state.peek<FileTracker>(TRACKER_KEY)?.clearReads();
}

/**
 * The warning given to the model when `path` changed since the agent last read or wrote it:
 * `overwrite` for write_file (those changes are gone), `edit` for patch (applied on top of them).
 */
export function staleWarning(displayPath: string, how: "overwrite" | "edit"): string {
  const start = `${displayPath} was modified since you last read it (by the user, an editor or another process). `;
  return how === "overwrite"
    ? `${start}Your write replaced those changes; re-read the file if they mattered.`
    : `${start}Your edit was applied to the current content; re-read the file to check the result.`;
}
