/**
 * Walking a skills folder as Hermes' `iter_skill_index_files` does: every folder below the root,
 * following symbolic links (each real folder once, so a link loop ends), skipping VCS, virtualenv,
 * dependency and cache folders, the support folders of a skill (`references/` … inside a folder
 * with SKILL.md hold data, never skills), and org mirrors other than the active one. Bounded:
 * at most MAX_DIRS folders, MAX_DEPTH deep. Never throws; unreadable folders are skipped.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { log } from "../../shared/logger.js";
import { SUPPORT_DIRS } from "./frontmatter.js";

/** Folders never walked (Hermes' EXCLUDED_SKILL_DIRS). */
const EXCLUDED_DIRS: ReadonlySet<string> = new Set([
  ".git",
  ".github",
  ".hub",
  ".archive",
  ".venv",
  "venv",
  "node_modules",
  "site-packages",
  "__pycache__",
  ".tox",
  ".nox",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
]);
const SUPPORT: ReadonlySet<string> = new Set(SUPPORT_DIRS);
/** Org mirrors live in `<root>/_org/<org id>/`; only the one named in `_org/.active_org` is walked. */
const ORG_DIR = "_org";
const ORG_MARKER = ".active_org";
const MAX_DIRS = 10_000;
const MAX_DEPTH = 12;

/** One walked folder: its path as reached from the root (links not resolved) and its file names. */
export interface WalkedDir {
  dir: string;
  files: string[];
}

/** Every folder of the tree at `root` (the root first, then depth first in name order). */
export function walkSkillTree(root: string): WalkedDir[] {
  const result: WalkedDir[] = [];
  const seen = new Set<string>();
  const activeOrg = readActiveOrg(root);
  const visit = (dir: string, depth: number): void => {
    if (result.length >= MAX_DIRS) return;
    let realDir: string;
    try {
      realDir = realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(realDir)) return;
    seen.add(realDir);
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    const files: string[] = [];
    const dirs: string[] = [];
    for (const name of names) {
      let stats;
      try {
        stats = statSync(path.join(dir, name));
      } catch {
        continue;
      }
      if (stats.isDirectory()) dirs.push(name);
      else if (stats.isFile()) files.push(name);
    }
    result.push({ dir, files });
    if (result.length === MAX_DIRS) log.warn(`skills: stopped walking ${root} after ${MAX_DIRS} folders`);
    if (depth >= MAX_DEPTH) return;
    const isSkill = files.includes("SKILL.md");
    for (const name of dirs) {
      if (EXCLUDED_DIRS.has(name) || (isSkill && SUPPORT.has(name))) continue;
      if (dir === root && name === ORG_DIR && activeOrg === undefined) continue;
      if (path.basename(dir) === ORG_DIR && path.dirname(dir) === root && name !== activeOrg) continue;
      visit(path.join(dir, name), depth + 1);
    }
  };
  visit(root, 0);
  return result;
}

/** The paths of every `filename` in the tree at `root`, sorted. */
export function skillIndexFiles(root: string, filename = "SKILL.md"): string[] {
  return walkSkillTree(root)
    .filter((walked) => walked.files.includes(filename))
    .map((walked) => path.join(walked.dir, filename))
    .sort();
}

/**
 * Whether `target` lies in a support folder of a skill (`<skill>/references/…` where `<skill>`
 * holds SKILL.md): such files are loaded with `skill_view(name, file_path)`, never as skills.
 */
export function isSupportPath(target: string): boolean {
  const parts = path.resolve(target).split(path.sep);
  for (let index = 1; index < parts.length - 1; index++) {
    if (!SUPPORT.has(parts[index] ?? "")) continue;
    if (existsSync(path.join(parts.slice(0, index).join(path.sep) || path.sep, "SKILL.md"))) return true;
  }
  return false;
}

function readActiveOrg(root: string): string | undefined {
  try {
    return readFileSync(path.join(root, ORG_DIR, ORG_MARKER), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
