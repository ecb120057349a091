import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "../../shared/abort.js";
import type { CompiledGlob } from "./glob.js";
import { IgnoreStack } from "./gitignore.js";

/** Directory and file names never searched below the root, whatever the ignore files say. */
export const ALWAYS_SKIPPED = [".git", "node_modules"] as const;

export interface WalkedFile {
  abs: string;
  /** Relative to the search root, `/`-separated. */
  rel: string;
}

export interface WalkOptions {
  /**
   * Applied after the skip rules, so a glob never brings back an ignored or hidden file: a plain
   * glob keeps only matching files; a `!glob` drops matching files and directories.
   */
  globs?: readonly FileFilter[];
  signal?: AbortSignal;
}

/** One file glob: `exclude` for a `!`-prefixed glob. */
export interface FileFilter {
  glob: CompiledGlob;
  exclude: boolean;
}

/**
 * The files ripgrep would visit under `root` (a directory), in no particular order: hidden
 * entries (names starting with `.`), `.git`, `node_modules`, symbolic links and what `.gitignore`
 * files ignore are skipped below the root; the root itself is always walked. Unreadable
 * directories are skipped silently, as ripgrep reports them only on stderr.
 * Throws an AbortError as soon as the signal fires between directories.
 */
export async function* walkFiles(root: string, options: WalkOptions = {}): AsyncGenerator<WalkedFile> {
  const globs = options.globs ?? [];
  const stack: Array<{ dir: string; rel: string; ignores: IgnoreStack }> = [
    { dir: root, rel: "", ignores: await IgnoreStack.forRoot(root) },
  ];
  while (stack.length > 0) {
    throwIfAborted(options.signal);
    const { dir, rel, ignores: parentIgnores } = stack.pop() as (typeof stack)[number];
    const ignores = rel === "" ? parentIgnores : await parentIgnores.enter(dir);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith(".") || (ALWAYS_SKIPPED as readonly string[]).includes(name)) continue;
      const abs = path.join(dir, name);
      const kind = await entryKind(entry, abs);
      if (kind === "other") continue; // symlinks, sockets, devices
      const isDir = kind === "dir";
      const entryRel = rel === "" ? name : `${rel}/${name}`;
      if (ignores.ignores(abs, isDir)) continue;
      if (isDir) {
        if (globs.some((filter) => filter.exclude && filter.glob.matches(entryRel, true))) continue;
        stack.push({ dir: abs, rel: entryRel, ignores });
      } else if (passesGlobs(entryRel, globs)) {
        yield { abs, rel: entryRel };
      }
    }
  }
}

/** File, directory or anything else (symlinks are not followed); asks lstat when readdir could not tell. */
async function entryKind(entry: Dirent, abs: string): Promise<"file" | "dir" | "other"> {
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "dir";
  const known = entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
  if (known) return "other";
  try {
    const stats = await lstat(abs);
    return stats.isFile() ? "file" : stats.isDirectory() ? "dir" : "other";
  } catch {
    return "other";
  }
}

/**
 * Whether a file passes the globs: the last glob that matches decides (a plain glob includes, a
 * `!glob` excludes); with no match the file passes only when every glob is a `!glob`.
 */
export function passesGlobs(rel: string, globs: readonly FileFilter[]): boolean {
  if (globs.length === 0) return true;
  for (let index = globs.length - 1; index >= 0; index -= 1) {
    const filter = globs[index] as FileFilter;
    if (filter.glob.matches(rel, false)) return !filter.exclude;
  }
  return globs.every((filter) => filter.exclude);
}
