/**
 * Path rules of the skill tools (Hermes' `tools/path_security.py` and the checks around it): a
 * skill name or a file inside a skill is a relative path without `..`, and whatever it names must
 * resolve (symbolic links followed) inside the skill's own folder. Pure checks plus `realpath`;
 * never throw.
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { SUPPORT_DIRS } from "./frontmatter.js";

/** Control characters and Unicode line separators: legal in POSIX names, but they forge log lines and listings. */
const UNSAFE_CHARS = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/u;

/** Whether `value` has a literal `..` component (either slash counts). */
export function hasTraversal(value: string): boolean {
  return value.split(/[\\/]/).includes("..");
}

/** Whether `value` is absolute on POSIX or Windows (`/x`, `\\x`, `C:…`). */
function isAbsoluteAnywhere(value: string): boolean {
  return path.posix.isAbsolute(value) || path.win32.isAbsolute(value) || /^[a-zA-Z]:/.test(value);
}

/** Why `name` cannot be looked up below the skill roots, or undefined (Hermes' `_skill_lookup_path_error`). */
export function lookupNameError(name: string): string | undefined {
  const candidate = name.trim();
  if (isAbsoluteAnywhere(candidate)) return "Skill name must be a relative path within the skills directory.";
  if (hasTraversal(candidate)) return "Skill name cannot contain '..' path traversal components.";
  if (UNSAFE_CHARS.test(candidate)) return "Skill name cannot contain control characters.";
  return undefined;
}

/**
 * `relative` joined onto the folder `dir` when it stays inside it: not absolute, no `..`, and its
 * real path (through every existing link; a path not yet created is judged by its nearest
 * existing folder) inside `dir`'s real path. Returns the joined (not resolved) path, or an error.
 */
export function resolveInside(dir: string, relative: string): { ok: true; path: string } | { ok: false; error: string } {
  if (hasTraversal(relative)) return { ok: false, error: "Path traversal ('..') is not allowed." };
  if (isAbsoluteAnywhere(relative)) return { ok: false, error: `Path escapes allowed directory: '${relative}' is absolute; give a path relative to the skill folder.` };
  if (UNSAFE_CHARS.test(relative)) return { ok: false, error: "File paths cannot contain control characters." };
  const target = path.join(dir, relative);
  const root = realOrResolved(dir);
  const resolved = realOrResolved(target);
  const rel = path.relative(root, resolved);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    return { ok: false, error: `Path escapes allowed directory: '${relative}' resolves to ${resolved}, outside the skill folder.` };
  }
  return { ok: true, path: target };
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest. */
export function realOrResolved(p: string): string {
  const absolute = path.resolve(p);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(realOrResolved(parent), path.basename(absolute));
  }
}

/**
 * Why `filePath` may not be written, removed or patched as a supporting file by `skill_manage`,
 * or undefined (Hermes' `_validate_file_path`): no `..`, and a file under one of SUPPORT_DIRS.
 * SKILL.md itself is refused here: it changes only through create / edit / patch / delete.
 */
export function supportFileError(filePath: string): string | undefined {
  if (!filePath) return "file_path is required.";
  if (hasTraversal(filePath)) return "Path traversal ('..') is not allowed.";
  // On POSIX a backslash is part of a name: `references\\x.md` would be a file beside SKILL.md, not in references/.
  if (path.sep === "/" && filePath.includes("\\")) return `Use forward slashes in file_path (e.g. 'references/api.md'). Got: '${filePath}'`;
  const parts = filePath.split(/[\\/]/).filter((part) => part !== "" && part !== ".");
  if (isSkillMdPath(filePath)) {
    return "SKILL.md is not a supporting file: replace it with action='edit', change part of it with action='patch', or remove the skill with action='delete'.";
  }
  if (parts.length === 0 || !(SUPPORT_DIRS as readonly string[]).includes(parts[0] ?? "")) {
    return `File must be under one of: ${[...SUPPORT_DIRS].sort().join(", ")}. Got: '${filePath}'`;
  }
  if (parts.length < 2) return `Provide a file path, not just a directory. Example: '${parts[0]}/myfile.md'`;
  return undefined;
}

/** `SKILL.md` or `<skill>/SKILL.md`: the skill's main file. */
export function isSkillMdPath(filePath: string): boolean {
  const parts = filePath.split(/[\\/]/).filter((part) => part !== "" && part !== ".");
  return parts[parts.length - 1] === "SKILL.md" && parts.length <= 2;
}

/** Whether `p` is a directory (following links); false when it cannot be read. */
export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `p` is a regular file (following links); false when it cannot be read. */
export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
