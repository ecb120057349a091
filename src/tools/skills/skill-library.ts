/**
 * The skills a session can see, as Hermes finds them (`tools/skills_tool.py`): every SKILL.md
 * below the roots (see skill-roots.ts) in precedence order, the first skill of a name winning,
 * minus skills for other platforms or environments and those disabled in config.yaml
 * (`skills.disabled`, `skills.platform_disabled.acp`). Reads the files when asked and keeps what
 * it read for the life of the object (one tool call, or one system prompt). Never throws.
 */
import { closeSync, openSync, readSync } from "node:fs";
import path from "node:path";
import type { HermesConfig } from "../../config/schema.js";
import { matchesEnvironment, matchesPlatform, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, parseSkillMarkdown, type Frontmatter } from "./frontmatter.js";
import { isDir, isFile, realOrResolved } from "./skill-paths.js";
import { skillRoots, type SkillRoots } from "./skill-roots.js";
import { isSupportPath, skillIndexFiles, walkSkillTree } from "./skill-walk.js";

export type SkillTier = "project" | "home" | "external";

/** One skill as listings show it. */
export interface SkillEntry {
  /** The frontmatter `name` (else the folder name), at most MAX_NAME_LENGTH chars. */
  name: string;
  /** The name of the skill's folder. */
  dirName: string;
  /** The frontmatter description, else the first body line that is no heading; "" when none. */
  description: string;
  /** Whether `description` came from the frontmatter (the index shows only those). */
  describedInFrontmatter: boolean;
  /** `skills_list`'s category: the first folder below the root for a skill nested two deep or more, else null. */
  category: string | null;
  /** The index's category: the folders between the root and the skill's folder, "general" at the top. */
  indexCategory: string;
  tier: SkillTier;
  /** The root folder it was found in. */
  root: string;
  /** The skill's folder and its SKILL.md, as reached from the root. */
  dir: string;
  file: string;
  frontmatter: Frontmatter;
}

/** Where a name points: one skill (a folder with SKILL.md, or a legacy flat `<name>.md` with `dir` null), or why not. */
export type LocatedSkill =
  | { ok: true; dir: string | null; file: string; tier: SkillTier; root: string }
  | { ok: false; error: string; extra: Record<string, unknown> };

/** Most of a SKILL.md read for a listing (the frontmatter sits at the top). */
const LISTING_READ_BYTES = 16_384;

export class SkillLibrary {
  private cached: SkillEntry[] | undefined;

  constructor(
    readonly roots: SkillRoots,
    private readonly options: { disabled?: Iterable<string>; platform?: string; env?: NodeJS.ProcessEnv } = {},
  ) {}

  /** The roots in precedence order: project folders, the home folder when it exists, external folders. */
  tiers(): Array<{ root: string; tier: SkillTier }> {
    return [
      ...this.roots.project.map((root) => ({ root, tier: "project" as const })),
      ...(isDir(this.roots.home) ? [{ root: this.roots.home, tier: "home" as const }] : []),
      ...this.roots.external.map((root) => ({ root, tier: "external" as const })),
    ];
  }

  /** Whether config.yaml turns the skill named `name` off. */
  isDisabled(name: string): boolean {
    return new Set(this.options.disabled ?? []).has(name);
  }

  /** Whether `frontmatter` fits this platform (the explicit-load gate). */
  fitsPlatform(frontmatter: Frontmatter): boolean {
    return matchesPlatform(frontmatter, this.options.platform);
  }

  /** The visible skills, first of each name winning, sorted by category then name (as `skills_list`). */
  entries(): SkillEntry[] {
    if (this.cached) return this.cached;
    const disabled = new Set(this.options.disabled ?? []);
    const seen = new Set<string>();
    const found: SkillEntry[] = [];
    for (const { root, tier } of this.tiers()) {
      for (const file of skillIndexFiles(root)) {
        const entry = readEntry(file, root, tier);
        if (!entry || !matchesPlatform(entry.frontmatter, this.options.platform) || !matchesEnvironment(entry.frontmatter, this.options.env)) continue;
        if (seen.has(entry.name) || disabled.has(entry.name) || disabled.has(entry.dirName)) continue;
        seen.add(entry.name);
        found.push(entry);
      }
    }
    this.cached = found.sort((a, b) => compare(a.category ?? "", b.category ?? "") || compare(a.name, b.name));
    return this.cached;
  }

  /** `DESCRIPTION.md` descriptions by index category (first root wins), for the index's category lines. */
  categoryDescriptions(): Map<string, string> {
    const found = new Map<string, string>();
    for (const { root } of this.tiers()) {
      for (const file of skillIndexFiles(root, "DESCRIPTION.md")) {
        const rel = path.relative(root, path.dirname(file));
        const key = rel === "" ? "general" : rel.split(path.sep).join("/");
        const description = parseSkillMarkdown(readHead(file) ?? "").frontmatter.description;
        if (description && !found.has(key)) found.set(key, String(description).trim().replace(/^["']+|["']+$/g, ""));
      }
    }
    return found;
  }

  /**
   * The one skill `name` names (Hermes' `_locate_skill`): a folder path below a root
   * (`devops/deploy`), a folder name or frontmatter name anywhere, or a legacy flat `<name>.md`;
   * `alias` is tried as a path too. Same-named skills in several roots are ambiguous, except that
   * a project skill overrides the others. `name` must already be checked (no `..`, not absolute).
   */
  locate(name: string, alias?: string): LocatedSkill {
    const tiers = this.tiers();
    if (tiers.length === 0) return { ok: false, error: "Skills directory does not exist yet. It will be created on first install.", extra: {} };
    const candidates = new Map<string, { dir: string | null; file: string; tier: SkillTier; root: string }>();
    const add = (dir: string | null, file: string, tier: SkillTier, root: string): void => {
      const key = realOrResolved(file);
      if (!candidates.has(key)) candidates.set(key, { dir, file, tier, root });
    };
    for (const { root, tier } of tiers) {
      for (const direct of [name, alias].filter((value): value is string => Boolean(value))) {
        const dir = path.join(root, direct);
        if (!isSupportPath(path.join(dir, "SKILL.md")) && isDir(dir) && isFile(path.join(dir, "SKILL.md"))) add(dir, path.join(dir, "SKILL.md"), tier, root);
        else if (isFile(`${dir}.md`) && !isSupportPath(`${dir}.md`)) add(null, `${dir}.md`, tier, root);
      }
      for (const walked of walkSkillTree(root)) {
        if (walked.files.includes("SKILL.md")) {
          const file = path.join(walked.dir, "SKILL.md");
          if (path.basename(walked.dir) === name || readEntry(file, root, tier)?.frontmatter.name === name) add(walked.dir, file, tier, root);
        }
        if (!name.includes("/") && name !== "SKILL" && walked.files.includes(`${name}.md`)) add(null, path.join(walked.dir, `${name}.md`), tier, root);
      }
    }
    let matches = [...candidates.values()];
    if (matches.length > 1 && matches.some((match) => match.tier === "project")) matches = matches.filter((match) => match.tier === "project");
    if (matches.length > 1) {
      return {
        ok: false,
        error: `Ambiguous skill name '${name}': ${matches.length} skills match across your local skills dir and external_dirs. Refusing to guess — load one explicitly by its categorized path.`,
        extra: {
          matches: matches.map((match) => match.file),
          hint: "Pass the full relative path instead of the bare name (e.g., 'category/skill-name'), or rename one of the colliding skills so each name is unique.",
        },
      };
    }
    const match = matches[0];
    if (!match) {
      return {
        ok: false,
        error: `Skill '${name}' not found.`,
        extra: { available_skills: this.entries().slice(0, 20).map((entry) => entry.name), hint: "Use skills_list to see all available skills" },
      };
    }
    return { ok: true, ...match };
  }

  /**
   * The skill folder named `name` that `skill_manage` may change (Hermes' `_find_skill`, by folder
   * name): in the home folder first; a match only in a read-only root is reported as such.
   */
  findOwned(name: string): { dir: string; tier: SkillTier } | undefined {
    const order = [
      ...(isDir(this.roots.home) ? [{ root: this.roots.home, tier: "home" as const }] : []),
      ...this.roots.external.map((root) => ({ root, tier: "external" as const })),
      ...this.roots.project.map((root) => ({ root, tier: "project" as const })),
    ];
    for (const { root, tier } of order) {
      for (const file of skillIndexFiles(root)) {
        if (path.basename(path.dirname(file)) === name && !isSupportPath(path.dirname(file))) return { dir: path.dirname(file), tier };
      }
    }
    return undefined;
  }
}

/** The library of a session: its roots, and the skills config.yaml disables for this agent (`acp`). */
export function skillLibraryFor(input: { hermesHome: string; cwd: string; config: Pick<HermesConfig, "skills">; env?: NodeJS.ProcessEnv; platform?: string }): SkillLibrary {
  const settings = input.config.skills;
  const disabled = [...settings.disabled, ...(settings.platform_disabled.acp ?? [])].map((name) => name.trim()).filter(Boolean);
  return new SkillLibrary(skillRoots(input), {
    disabled,
    ...(input.env ? { env: input.env } : {}),
    ...(input.platform ? { platform: input.platform } : {}),
  });
}

/** A listing entry for the SKILL.md at `file` below `root`, or undefined when it cannot be read. */
function readEntry(file: string, root: string, tier: SkillTier): SkillEntry | undefined {
  const text = readHead(file);
  if (text === undefined) return undefined;
  const { frontmatter, body } = parseSkillMarkdown(text);
  const dir = path.dirname(file);
  const dirName = path.basename(dir);
  const rawName = frontmatter.name;
  const name = (rawName === undefined || rawName === null || rawName === "" ? dirName : String(rawName)).slice(0, MAX_NAME_LENGTH);
  const fromFrontmatter = frontmatter.description ? String(frontmatter.description) : "";
  const firstLine = body
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line && !line.startsWith("#"));
  const description = fromFrontmatter || firstLine || "";
  const parts = path.relative(root, file).split(path.sep);
  return {
    name,
    dirName,
    description: description.length > MAX_DESCRIPTION_LENGTH ? `${description.slice(0, MAX_DESCRIPTION_LENGTH - 3)}...` : description,
    describedInFrontmatter: fromFrontmatter !== "",
    category: parts.length >= 3 ? (parts[0] ?? null) : null,
    indexCategory: parts.length > 2 ? parts.slice(0, -2).join("/") : "general",
    tier,
    root,
    dir,
    file,
    frontmatter,
  };
}

/** The first LISTING_READ_BYTES of `file` as text, or undefined when it cannot be read. */
function readHead(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(LISTING_READ_BYTES);
    const read = readSync(fd, buffer, 0, LISTING_READ_BYTES, 0);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
