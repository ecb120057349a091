/**
 * Where a session's skills live, in Hermes' precedence order (`agent/skill_utils.py`): trusted
 * project folders first (`.hermes/skills` and `.agents/skills` at the git root of the session's
 * cwd, only when that root is listed in `skills.trusted_project_dirs`), then `$HERMES_HOME/skills`,
 * then `skills.external_dirs`. Only the home folder is ever written; the others are read-only.
 * Resolved once per call from config.yaml and the cwd (both fixed for a session), so the index
 * built from them is stable. Never throws.
 */
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { HermesConfig } from "../../config/schema.js";
import { isDir, realOrResolved } from "./skill-paths.js";

export interface SkillRoots {
  /** `$HERMES_HOME/skills` (may not exist yet): the only folder `skill_manage` writes. */
  home: string;
  /** Trusted project skill folders (real paths), highest precedence, read-only. */
  project: string[];
  /** `skills.external_dirs` that exist (real paths), in config order, read-only. */
  external: string[];
}

/** The project folders Hermes looks in, below the project root. */
const PROJECT_SKILL_DIRS = [path.join(".hermes", "skills"), path.join(".agents", "skills")];
/** How far up from the cwd a project root (a folder holding `.git`) is looked for. */
const PROJECT_ROOT_MAX_DEPTH = 64;

export interface SkillRootsInput {
  hermesHome: string;
  /** The session's working directory (absolute). */
  cwd: string;
  config: Pick<HermesConfig, "skills">;
  /** For `${VAR}` in configured paths; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export function skillRoots(input: SkillRootsInput): SkillRoots {
  const env = input.env ?? process.env;
  const home = path.join(input.hermesHome, "skills");
  const homeReal = realOrResolved(home);
  const external: string[] = [];
  for (const entry of input.config.skills.external_dirs) {
    const text = entry.trim();
    if (!text) continue;
    const expanded = expandPath(text, env);
    const dir = realOrResolved(path.isAbsolute(expanded) ? expanded : path.join(input.hermesHome, expanded));
    if (dir === homeReal || external.includes(dir) || !isDir(dir)) continue;
    external.push(dir);
  }
  return { home, project: projectSkillDirs(input, homeReal, env), external };
}

/** The trusted project folders of the cwd's project root; [] when discovery is off, there is no root or it is not trusted. */
function projectSkillDirs(input: SkillRootsInput, homeReal: string, env: NodeJS.ProcessEnv): string[] {
  const settings = input.config.skills;
  if (settings.project_discovery === false) return [];
  const root = findProjectRoot(input.cwd);
  if (!root) return [];
  const trusted = new Set(settings.trusted_project_dirs.map((entry) => entry.trim()).filter(Boolean).map((entry) => realOrResolved(path.resolve(expandPath(entry, env)))));
  if (!trusted.has(root)) return [];
  return PROJECT_SKILL_DIRS.map((sub) => realOrResolved(path.join(root, sub))).filter((dir) => dir !== homeReal && isDir(dir));
}

/**
 * The nearest folder at or above `start` holding `.git` (a folder or a worktree file), as a real
 * path; undefined when there is none, or when it is the user's home folder (a dotfiles checkout
 * would make every session a project).
 */
export function findProjectRoot(start: string): string | undefined {
  let current = realOrResolved(start);
  const userHome = realOrResolved(os.homedir());
  for (let depth = 0; depth < PROJECT_ROOT_MAX_DEPTH; depth++) {
    if (exists(path.join(current, ".git"))) return current === userHome ? undefined : current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

/** `~` and `$VAR` / `${VAR}` expanded as Python's expanduser + expandvars (unknown variables stay as written). */
export function expandPath(value: string, env: NodeJS.ProcessEnv): string {
  const vars = value.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => env[braced ?? bare ?? ""] ?? whole);
  if (vars === "~") return os.homedir();
  return vars.startsWith("~/") ? path.join(os.homedir(), vars.slice(2)) : vars;
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
