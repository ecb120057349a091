import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, rename, rm, rmdir, symlink, unlink, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import type { RestoreChange } from "./types.js";

/** A file of a snapshot: git mode (`100644`, `100755`, `120000` for a symlink) and blob id. */
export interface SnapshotEntry {
  mode: string;
  sha: string;
}

/**
 * Why `path` (relative, `/`-separated) must not be written or deleted, or undefined when it may:
 * it is absolute or climbs out, or one of its folders inside the workspace is a symlink (writing
 * through it could land outside) or not a folder. Folders that do not exist yet are fine.
 */
async function unsafeReason(workspace: string, path: string): Promise<string | undefined> {
  const parts = path.split("/");
  if (posix.isAbsolute(path) || parts.some((part) => part === ".." || part === "")) return "not a path inside the workspace";
  let folder = workspace;
  for (const part of parts.slice(0, -1)) {
    folder = join(folder, part);
    const stats = await lstat(folder).catch(() => undefined);
    if (!stats) return undefined;
    if (stats.isSymbolicLink()) return "goes through a symbolic link";
    if (!stats.isDirectory()) return "a folder on the way is a file";
  }
  return undefined;
}

/** Writes one snapshot file in place of whatever is at `target` (a file, a symlink, an empty folder), through a temporary name and a rename. */
async function writeEntry(target: string, entry: SnapshotEntry, content: Buffer): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const current = await lstat(target).catch(() => undefined);
  if (current?.isDirectory()) await rmdir(target);
  const temp = join(dirname(target), `.hermes-rollback-${randomBytes(6).toString("hex")}`);
  try {
    if (entry.mode === "120000") await symlink(content.toString("utf8"), temp);
    else {
      await writeFile(temp, content);
      await chmod(temp, entry.mode === "100755" ? 0o755 : 0o644);
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Removes the folders of `path` that are empty now and that the snapshot does not have, deepest first, never the workspace itself. */
async function removeEmptyFolders(workspace: string, path: string, snapshotFolders: ReadonlySet<string>): Promise<void> {
  for (let folder = posix.dirname(path); folder !== "." && !snapshotFolders.has(folder); folder = posix.dirname(folder)) {
    const absolute = join(workspace, folder);
    const entries = await readdir(absolute).catch(() => undefined);
    if (!entries || entries.length > 0) return;
    await rmdir(absolute).catch(() => undefined);
  }
}

/**
 * Applies `changes` (what restoring a snapshot undoes, see `CheckpointStore.restore`) to the
 * workspace: files created since are deleted first (a symlink is removed, never followed; a
 * folder is never removed unless it is left empty and the snapshot has none there), then every
 * changed or deleted file is written back from `entries`. An unsafe path (`unsafeReason`) is
 * skipped and reported; an I/O error rejects, naming the file, with what was done before it lost.
 */
export async function applyRestore(
  workspace: string,
  changes: readonly RestoreChange[],
  entries: ReadonlyMap<string, SnapshotEntry>,
  readBlob: (sha: string) => Promise<Buffer>,
): Promise<{ changes: RestoreChange[]; skipped: string[] }> {
  const done: RestoreChange[] = [];
  const skipped: string[] = [];
  const snapshotFolders = new Set<string>();
  for (const path of entries.keys()) for (let folder = posix.dirname(path); folder !== "."; folder = posix.dirname(folder)) snapshotFolders.add(folder);
  const ordered = [...changes.filter((change) => change.kind === "deleted"), ...changes.filter((change) => change.kind !== "deleted")];
  for (const change of ordered) {
    const reason = await unsafeReason(workspace, change.path);
    if (reason) {
      skipped.push(`${change.path} (${reason})`);
      continue;
    }
    const target = join(workspace, change.path);
    try {
      if (change.kind === "deleted") {
        const stats = await lstat(target).catch(() => undefined);
        if (stats && !stats.isDirectory()) await unlink(target);
        await removeEmptyFolders(workspace, change.path, snapshotFolders);
      } else {
        const entry = entries.get(change.path);
        if (!entry) {
          skipped.push(`${change.path} (not in the checkpoint)`);
          continue;
        }
        await writeEntry(target, entry, await readBlob(entry.sha));
      }
      done.push(change);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const before = done.length > 0 ? ` Already restored: ${done.map((item) => item.path).join(", ")}.` : "";
      throw new Error(`could not restore ${change.path}: ${message}.${before}`);
    }
  }
  return { changes: done, skipped };
}
