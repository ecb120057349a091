/**
 * What `skill_manage` does (Hermes' `tools/skill_manager_tool.py`): create, edit, patch and
 * delete skills, write and remove their supporting files — only in `$HERMES_HOME/skills`
 * (external and project folders are read-only), with Hermes' validation and messages. Every text
 * written is checked first (SKILL.md format, size, the content scan) and written atomically;
 * a refused call writes nothing. Each action returns an outcome for the model; they throw only
 * for an unwritable skills folder (Error naming the file).
 */
import { lstatSync, readdirSync, readFileSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import path from "node:path";
import { decodeText, encodeText, toBody } from "../file-edit/text-format.js";
import { fuzzyReplace } from "../patch/engine/replace.js";
import type { FileEdit } from "../ports.js";
import type { SkillManageAction } from "./details.js";
import { categoryError, contentSizeError, MAX_SKILL_FILE_BYTES, skillMarkdownError, skillNameError, SUPPORT_DIRS } from "./frontmatter.js";
import { listFiles } from "./skill-files.js";
import type { SkillLibrary } from "./skill-library.js";
import { isFile, isSkillMdPath, realOrResolved, resolveInside, supportFileError } from "./skill-paths.js";
import { skillThreat } from "./skill-scan.js";
import { isSupportPath } from "./skill-walk.js";
import { atomicWriteText } from "./skill-write.js";

export interface SkillManageInput {
  action: SkillManageAction;
  name: string;
  content?: string | undefined;
  category?: string | undefined;
  file_path?: string | undefined;
  file_content?: string | undefined;
  old_string?: string | undefined;
  new_string?: string | undefined;
  replace_all?: boolean | undefined;
  absorbed_into?: string | undefined;
}

export type SkillManageOutcome =
  | { ok: true; output: Record<string, unknown>; dir: string; files: FileEdit[] }
  | { ok: false; error: string; extra?: Record<string, unknown> };

const refused = (error: string, extra?: Record<string, unknown>): SkillManageOutcome => (extra ? { ok: false, error, extra } : { ok: false, error });

/** Why `text` may not be written into a skill, or undefined. */
function scanError(text: string, label: string): string | undefined {
  const threat = skillThreat(text);
  return threat
    ? `Refused: ${label} looks unsafe (${threat}). Skills are loaded as instructions in later sessions, so this text cannot be saved; remove that part and retry.`
    : undefined;
}

/** Whether the real path `real` is `dir` or lies below it (`dir` resolved through its links). */
function within(dir: string, real: string): boolean {
  const rel = path.relative(realOrResolved(dir), real);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Where `dir` (a skill folder, existing or to be made) really lies when `skill_manage` may not
 * write there: outside the home skills folder (reached through a link), or inside one of the
 * read-only roots (an external or project folder placed inside the home folder). Undefined when
 * it is the home folder's own.
 */
function readOnlyPlace(library: SkillLibrary, dir: string): "external" | "project" | "outside" | undefined {
  const real = realOrResolved(dir);
  const home = realOrResolved(library.roots.home);
  // a root that holds the home folder itself (a configured parent folder) makes nothing read-only
  const readOnly = (roots: readonly string[]): boolean => roots.some((root) => !within(root, home) && within(root, real));
  if (readOnly(library.roots.external)) return "external";
  if (readOnly(library.roots.project)) return "project";
  const rel = path.relative(home, real);
  return rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? "outside" : undefined;
}

const PLACES = { external: "skills.external_dirs", project: "a project's skills folder", outside: "a folder outside the skills folder (linked in)" } as const;

/** The home skill folder `name` names, or why `skill_manage` may not change it. */
function ownedSkill(library: SkillLibrary, name: string, suffix = ""): { ok: true; dir: string } | { ok: false; error: string } {
  const found = library.findOwned(name);
  if (!found) return { ok: false, error: `Skill '${name}' not found. Use skills_list() to see available skills.${suffix}` };
  const place = found.tier === "home" ? readOnlyPlace(library, found.dir) : found.tier;
  if (place) {
    const where = PLACES[place];
    return {
      ok: false,
      error: `Skill '${name}' lives in ${found.dir} (${where}), which is read-only: skill_manage changes only skills in ${library.roots.home}. Create your own version there with action='create' under a new name.`,
    };
  }
  return { ok: true, dir: found.dir };
}

export function createSkill(library: SkillLibrary, input: SkillManageInput): SkillManageOutcome {
  const content = input.content ?? "";
  const category = input.category?.trim() || undefined;
  const invalid =
    skillNameError(input.name) ?? categoryError(category) ?? skillMarkdownError(content) ?? contentSizeError(content) ?? scanError(content, "the skill content");
  if (invalid) return refused(invalid);
  const existing = library.findOwned(input.name);
  if (existing) return refused(`A skill named '${input.name}' already exists at ${existing.dir}.`);
  const dir = category ? path.join(library.roots.home, category, input.name) : path.join(library.roots.home, input.name);
  const file = path.join(dir, "SKILL.md");
  // The folders on the way may already exist: a link out of the skills folder, a read-only root, another skill's support folder.
  const place = readOnlyPlace(library, dir);
  if (place) return refused(`Cannot create '${path.relative(library.roots.home, dir)}': it leads into ${PLACES[place]} (${realOrResolved(dir)}), which is read-only: skill_manage writes only in ${library.roots.home}. Choose another name or category.`);
  if (isSupportPath(file)) return refused(`Cannot create '${path.relative(library.roots.home, dir)}': it lies in the support folder of another skill (references/, templates/, scripts/, assets/ hold a skill's files, never skills). Choose another category.`);
  atomicWriteText(file, content);
  const output: Record<string, unknown> = {
    success: true,
    message: `Skill '${input.name}' created.`,
    path: path.relative(library.roots.home, dir),
    skill_md: file,
    ...(category ? { category } : {}),
    hint: `To add reference files, templates, or scripts, use skill_manage(action='write_file', name='${input.name}', file_path='references/example.md', file_content='...')`,
  };
  return { ok: true, output, dir, files: [{ path: file, oldText: null, newText: content }] };
}

export function editSkill(library: SkillLibrary, input: SkillManageInput): SkillManageOutcome {
  const content = input.content ?? "";
  const invalid = skillMarkdownError(content) ?? contentSizeError(content) ?? scanError(content, "the skill content");
  if (invalid) return refused(invalid);
  const owned = ownedSkill(library, input.name);
  if (!owned.ok) return refused(owned.error);
  const file = path.join(owned.dir, "SKILL.md");
  const oldText = readText(file);
  atomicWriteText(file, content);
  return {
    ok: true,
    output: { success: true, message: `Skill '${input.name}' updated (full rewrite).`, path: owned.dir },
    dir: owned.dir,
    files: [{ path: file, oldText, newText: content }],
  };
}

/** Find-and-replace in SKILL.md or a supporting file, with the `patch` tool's matcher (fuzzy levels, uniqueness). */
export function patchSkill(library: SkillLibrary, input: SkillManageInput): SkillManageOutcome {
  const oldString = input.old_string ?? "";
  const newString = input.new_string ?? "";
  const owned = ownedSkill(library, input.name);
  if (!owned.ok) return refused(owned.error);
  const mainFile = !input.file_path || isSkillMdPath(input.file_path);
  const label = mainFile ? "SKILL.md" : (input.file_path ?? "");
  let target = path.join(owned.dir, "SKILL.md");
  if (!mainFile) {
    const invalid = supportFileError(label);
    if (invalid) return refused(invalid);
    const inside = resolveInside(owned.dir, label);
    if (!inside.ok) return refused(inside.error);
    target = inside.path;
  }
  const oldText = readText(target);
  if (oldText === null) return refused(`File not found: ${path.relative(owned.dir, target)}`);
  const { body, format } = decodeText(oldText);
  const outcome = fuzzyReplace(body, toBody(oldString), toBody(newString), input.replace_all ?? false);
  if (!outcome.ok) return refused(outcome.error, { file_preview: body.length > 500 ? `${body.slice(0, 500)}...` : body });
  const newText = encodeText(outcome.content, format);
  if (outcome.alreadyApplied || newText === oldText) {
    return { ok: true, output: { success: true, message: `No change: the edit is already present in ${label} of skill '${input.name}'.` }, dir: owned.dir, files: [] };
  }
  const invalid =
    contentSizeError(newText, label) ??
    (mainFile ? prefixed("Patch would break SKILL.md structure: ", skillMarkdownError(newText)) : undefined) ??
    scanError(newString, "the new text") ??
    (skillThreat(oldText) ? undefined : scanError(newText, `${label} after the patch`));
  if (invalid) return refused(invalid);
  atomicWriteText(target, newText);
  const count = outcome.count;
  return {
    ok: true,
    output: { success: true, message: `Patched ${label} in skill '${input.name}' (${count} replacement${count > 1 ? "s" : ""}).`, strategy: outcome.strategy },
    dir: owned.dir,
    files: [{ path: target, oldText, newText }],
  };
}

export function deleteSkill(library: SkillLibrary, input: SkillManageInput): SkillManageOutcome {
  const owned = ownedSkill(library, input.name);
  if (!owned.ok) return refused(owned.error);
  const dir = owned.dir;
  if (isLink(dir)) return refused(`Refusing to delete '${dir}': the skill directory is a symlink/junction. Remove the link target manually if intended.`);
  const home = realOrResolved(library.roots.home);
  const rel = path.relative(home, realOrResolved(dir));
  if (rel === "") return refused(`Refusing to delete '${dir}': resolves to the skills root itself, which would remove every installed skill.`);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return refused(`Refusing to delete '${dir}': path does not resolve inside any known skills root.`);
  const absorbed = input.absorbed_into?.trim() ?? "";
  if (absorbed === input.name) return refused(`absorbed_into='${absorbed}' cannot equal the skill being deleted.`);
  if (absorbed && !library.findOwned(absorbed)) {
    return refused(`absorbed_into='${absorbed}' does not exist. Create or patch the umbrella skill first, then retry the delete.`);
  }
  const file = path.join(dir, "SKILL.md");
  const oldText = readText(file);
  rmSync(dir, { recursive: true, force: true });
  const parent = path.dirname(dir);
  if (realOrResolved(parent) !== home) removeIfEmpty(parent);
  const message = `Skill '${input.name}' deleted.${absorbed ? ` Content absorbed into '${absorbed}'.` : ""}`;
  return { ok: true, output: { success: true, message }, dir, files: [{ path: file, oldText: oldText ?? "", newText: null }] };
}

export function writeSkillFile(library: SkillLibrary, input: SkillManageInput): SkillManageOutcome {
  const filePath = input.file_path ?? "";
  const content = input.file_content ?? "";
  const invalidPath = supportFileError(filePath);
  if (invalidPath) return refused(invalidPath);
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > MAX_SKILL_FILE_BYTES) {
    return refused(
      `File content is ${bytes.toLocaleString("en-US")} bytes (limit: ${MAX_SKILL_FILE_BYTES.toLocaleString("en-US")} bytes / 1 MiB). Consider splitting into smaller files.`,
    );
  }
  const tooLarge = contentSizeError(content, filePath);
  if (tooLarge) return refused(tooLarge);
  const owned = ownedSkill(library, input.name, " Create it first with action='create'.");
  if (!owned.ok) return refused(owned.error);
  const inside = resolveInside(owned.dir, filePath);
  if (!inside.ok) return refused(inside.error);
  const unsafe = scanError(content, `'${filePath}'`);
  if (unsafe) return refused(unsafe);
  const oldText = readText(inside.path);
  atomicWriteText(inside.path, content);
  return {
    ok: true,
    output: { success: true, message: `File '${filePath}' written to skill '${input.name}'.`, path: inside.path },
    dir: owned.dir,
    files: [{ path: inside.path, oldText, newText: content }],
  };
}

export function removeSkillFile(library: SkillLibrary, input: SkillManageInput): SkillManageOutcome {
  const filePath = input.file_path ?? "";
  const invalidPath = supportFileError(filePath);
  if (invalidPath) return refused(invalidPath);
  const owned = ownedSkill(library, input.name);
  if (!owned.ok) return refused(owned.error);
  const inside = resolveInside(owned.dir, filePath);
  if (!inside.ok) return refused(inside.error);
  if (!isFile(inside.path)) {
    const available = SUPPORT_DIRS.flatMap((sub) => listFiles(owned.dir, path.join(owned.dir, sub), true, sub));
    return refused(`File '${filePath}' not found in skill '${input.name}'.`, { available_files: available.length > 0 ? available : null });
  }
  const oldText = readText(inside.path) ?? "";
  unlinkSync(inside.path);
  const parent = path.dirname(inside.path);
  if (parent !== owned.dir) removeIfEmpty(parent);
  return {
    ok: true,
    output: { success: true, message: `File '${filePath}' removed from skill '${input.name}'.` },
    dir: owned.dir,
    files: [{ path: inside.path, oldText, newText: null }],
  };
}

function prefixed(prefix: string, error: string | undefined): string | undefined {
  return error === undefined ? undefined : `${prefix}${error}`;
}

/** The file's text (binary content shown as a note, for the diff), or null when it does not exist. */
function readText(file: string): string | null {
  try {
    const bytes = readFileSync(file);
    return bytes.subarray(0, 8192).includes(0) ? `[binary file, ${bytes.length} bytes]` : bytes.toString("utf8");
  } catch {
    return null;
  }
}

function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // gone already, or not empty after all
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
