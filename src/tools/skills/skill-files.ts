/**
 * The files inside one skill folder: what `skill_view` lists as linked (Hermes'
 * `_skill_linked_files`), what it offers when a file is missing (`_available_skill_files`), and
 * reading one of them safely. Listings never follow links to folders and stop at MAX_LISTED
 * files. Never throw.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { binaryTypeByContent } from "../read-file/binary.js";
import { MAX_SKILL_FILE_BYTES, SUPPORT_DIRS } from "./frontmatter.js";
import { realOrResolved } from "./skill-paths.js";

const MAX_LISTED = 500;

/** Per support folder: which names `linked_files` shows and whether subfolders count (Hermes' `_LINKED_FILE_SPECS`). */
const LINKED: ReadonlyArray<{ dir: (typeof SUPPORT_DIRS)[number]; ext: readonly string[] | "any"; recursive: boolean }> = [
  { dir: "references", ext: [".md"], recursive: false },
  { dir: "templates", ext: [".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"], recursive: true },
  { dir: "assets", ext: "any", recursive: true },
  { dir: "scripts", ext: [".py", ".sh", ".bash", ".js", ".ts", ".rb"], recursive: false },
];
/** Files outside the support folders still worth listing when a file is not found. */
const SKILL_FILE_EXTS: ReadonlySet<string> = new Set([".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"]);

/**
 * Files below `dir` as paths relative to it (POSIX slashes), prefixed with `prefix`, sorted;
 * links to folders inside are not followed, and a `dir` that leads out of `skillDir` lists nothing.
 */
export function listFiles(skillDir: string, dir: string, recursive: boolean, prefix = ""): string[] {
  const found: string[] = [];
  const rel = path.relative(realOrResolved(skillDir), realOrResolved(dir));
  if (rel.startsWith("..") || path.isAbsolute(rel)) return found;
  const visit = (current: string, rel: string): void => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (found.length >= MAX_LISTED) return;
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (recursive) visit(path.join(current, entry.name), relPath);
      } else if (entry.isFile() || (entry.isSymbolicLink() && isFile(path.join(current, entry.name)))) {
        found.push(relPath);
      }
    }
  };
  visit(dir, prefix);
  return found;
}

/** The skill's linked files by support folder (empty groups left out), or null when it has none. */
export function linkedFiles(skillDir: string): Record<string, string[]> | null {
  const groups: Record<string, string[]> = {};
  for (const spec of LINKED) {
    const files = listFiles(skillDir, path.join(skillDir, spec.dir), spec.recursive, spec.dir).filter(
      (file) => spec.ext === "any" || spec.ext.includes(path.extname(file)),
    );
    if (files.length > 0) groups[spec.dir] = files;
  }
  return Object.keys(groups).length > 0 ? groups : null;
}

/** Every file of the skill but SKILL.md and dot-folders, by support folder, then `other` for known text types elsewhere. */
export function availableFiles(skillDir: string): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const rel of listFiles(skillDir, skillDir, true)) {
    if (rel === "SKILL.md" || rel.split("/").some((part) => part.startsWith("."))) continue;
    const top = rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : undefined;
    const group = top && (SUPPORT_DIRS as readonly string[]).includes(top) ? top : SKILL_FILE_EXTS.has(path.extname(rel)) ? "other" : undefined;
    if (group) (groups[group] ??= []).push(rel);
  }
  const ordered: Record<string, string[]> = {};
  for (const key of [...SUPPORT_DIRS, "other"]) if (groups[key]) ordered[key] = groups[key];
  return ordered;
}

export type SkillFileText = { ok: true; text: string; binary: boolean; size: number } | { ok: false; error: string };

/**
 * The text of a skill file (at most MAX_SKILL_FILE_BYTES; larger ones are refused), or for
 * binary content (a NUL byte in the first 8 KB) a one-line note instead of the bytes.
 */
export function readSkillFile(file: string): SkillFileText {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  if (size > MAX_SKILL_FILE_BYTES) {
    return { ok: false, error: `it is ${size.toLocaleString("en-US")} bytes, more than skill_view shows (${MAX_SKILL_FILE_BYTES.toLocaleString("en-US")}); read it in parts with read_file` };
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  if (binaryTypeByContent(bytes.subarray(0, 8192))) {
    return { ok: true, text: `[Binary file: ${path.basename(file)}, size: ${size} bytes]`, binary: true, size };
  }
  const text = bytes.toString("utf8");
  return { ok: true, text: text.startsWith("\ufeff") ? text.slice(1) : text, binary: false, size };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
