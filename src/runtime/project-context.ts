import { open, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { ProjectContextFile } from "../agent/system-prompt.js";

/**
 * Finds the project context files of a working directory, as Hermes does. Only one kind loads,
 * the first found wins:
 * 1. `hermes` — `.hermes.md` or `HERMES.md`, the nearest one walking up from the cwd to the git
 *    root (the cwd alone when there is no git root); YAML frontmatter stripped;
 * 2. `agents` — the AGENTS.md chain: for every directory from the git root down to the cwd, the
 *    first of `AGENTS.override.md`, `AGENTS.md`, `agents.md` (a file reached twice through links
 *    loads once), each its own section;
 * 3. `claude` — `CLAUDE.md` or `claude.md` in the cwd;
 * 4. `cursor` — `.cursorrules` and `.cursor/rules/*.mdc` (by name) in the cwd.
 * Labels are paths relative to the git root (or the cwd). Empty files count as absent; only
 * regular files are read, at most 1 MiB each (capping for the prompt happens in the builder).
 */

export type ProjectContextKind = "hermes" | "agents" | "claude" | "cursor";

export interface ProjectContext {
  kind: ProjectContextKind;
  files: ProjectContextFile[];
}

const MAX_READ_BYTES = 1024 * 1024;
const HERMES_NAMES = [".hermes.md", "HERMES.md"];
const AGENTS_NAMES = ["AGENTS.override.md", "AGENTS.md", "agents.md"];
const CLAUDE_NAMES = ["CLAUDE.md", "claude.md"];

/** The nearest directory at or above `cwd` holding `.git` (a folder, or a worktree's file). */
export async function findGitRoot(cwd: string): Promise<string | undefined> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (await exists(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The project context of `cwd` (see the module doc), or undefined when it has none. Never throws. */
export async function discoverProjectContext(cwdPath: string): Promise<ProjectContext | undefined> {
  try {
    const cwd = resolve(cwdPath);
    const root = await findGitRoot(cwd);
    const base = root ?? cwd;
    const label = (path: string): string => relative(base, path).split(sep).join("/") || path;
    const upward = root ? ancestors(cwd, root) : [cwd];

    for (const dir of upward) {
      const found = await firstReadable(dir, HERMES_NAMES);
      const content = found ? stripFrontmatter(found.content) : "";
      if (found && content.trim() !== "") return { kind: "hermes", files: [{ label: label(found.path), path: found.path, content }] };
    }

    const agents: ProjectContextFile[] = [];
    const seen = new Set<string>();
    for (const dir of [...upward].reverse()) {
      const found = await firstReadable(dir, AGENTS_NAMES);
      if (!found) continue;
      const real = await realpath(found.path).catch(() => found.path);
      if (seen.has(real)) continue;
      seen.add(real);
      agents.push({ label: label(found.path), path: found.path, content: found.content });
    }
    if (agents.length > 0) return { kind: "agents", files: agents };

    const claude = await firstReadable(cwd, CLAUDE_NAMES);
    if (claude) return { kind: "claude", files: [{ label: label(claude.path), path: claude.path, content: claude.content }] };

    const cursor: ProjectContextFile[] = [];
    const rules = await readText(join(cwd, ".cursorrules"));
    if (rules !== undefined) cursor.push({ label: label(join(cwd, ".cursorrules")), path: join(cwd, ".cursorrules"), content: rules });
    const rulesDir = join(cwd, ".cursor", "rules");
    const names = (await readdir(rulesDir).catch(() => [] as string[])).filter((name) => name.endsWith(".mdc")).sort();
    for (const name of names) {
      const path = join(rulesDir, name);
      const content = await readText(path);
      if (content !== undefined) cursor.push({ label: label(path), path, content });
    }
    return cursor.length > 0 ? { kind: "cursor", files: cursor } : undefined;
  } catch {
    return undefined;
  }
}

/** Removes a leading YAML frontmatter block (`---` … `---`). Text without one is returned as is. */
export function stripFrontmatter(text: string): string {
  const match = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return match ? text.slice(match[0].length).replace(/^\s*\n/, "") : text;
}

/** `from`, its parent, … up to and including `root` (which must contain `from`). */
function ancestors(from: string, root: string): string[] {
  const dirs: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root || dirname(dir) === dir) return dirs;
  }
}

async function firstReadable(dir: string, names: readonly string[]): Promise<{ path: string; content: string } | undefined> {
  for (const name of names) {
    const path = join(dir, name);
    const content = await readText(path);
    if (content !== undefined) return { path, content };
  }
  return undefined;
}

/** The text of a regular, non-blank file (its first 1 MiB), else undefined. */
async function readText(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return undefined;
    const handle = await open(path, "r");
    try {
      const buffer = Buffer.alloc(Math.min(info.size, MAX_READ_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const text = buffer.subarray(0, bytesRead).toString("utf8");
      return text.trim() === "" ? undefined : text;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
