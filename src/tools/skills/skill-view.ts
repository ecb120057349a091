import { statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { secretFileReason } from "../../config/secret-files.js";
import { log } from "../../shared/logger.js";
import { defineTool, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import type { SkillViewResultDetails } from "./details.js";
import { hermesMeta, parseSkillMarkdown, parseTags } from "./frontmatter.js";
import { availableFiles, linkedFiles, readSkillFile } from "./skill-files.js";
import { skillLibraryFor, type SkillLibrary } from "./skill-library.js";
import { lookupNameError, resolveInside } from "./skill-paths.js";
import { skillThreat } from "./skill-scan.js";

const skillViewParams = z.lazy(() => z.object({
  name: z.string().min(1).describe("The skill name (see skills_list), or its path in the skills folder ('category/skill-name')."),
  file_path: z.string().optional().describe("A linked file of the skill, e.g. 'references/api.md' or 'scripts/validate.py'; omit for SKILL.md."),
}));

export type SkillViewArgs = z.infer<typeof skillViewParams>;

const DESCRIPTION =
  "Load a skill (instructions for a specific task or workflow, with its scripts and templates): the first call returns " +
  "SKILL.md plus 'linked_files' (references, templates, scripts); call again with file_path to read one of those.";

const NAMESPACE = /^[a-zA-Z0-9_-]+$/;

type Result = ToolResult<SkillViewResultDetails>;

/** An `isError` result in Hermes' shape `{success: false, error, …extra}`. */
function fail(name: string, error: string, extra: Record<string, unknown> = {}): Result {
  return { content: JSON.stringify({ success: false, error, ...extra }), details: { name, error }, isError: true };
}

function describeView(args: SkillViewArgs): ToolDescription {
  return { title: args.file_path ? `skill: ${args.name} (${args.file_path})` : `skill: ${args.name}`, locations: [] };
}

/**
 * `skill_view`, as Hermes has it: one skill's SKILL.md (with tags, related skills and its linked
 * files) or, with `file_path`, one file inside the skill folder. Names and file paths are relative
 * and stay inside their folder: `..`, absolute paths and links that lead out are refused, as are
 * credential files. A disabled skill or one for another platform is refused; `plugin:skill`
 * names fall back to the `plugin/skill` path (this agent has no plugins). Reads only; never throws.
 */
export const skillViewTool = defineTool({
  name: "skill_view",
  description: DESCRIPTION,
  kind: "read",
  mutating: false,
  params: skillViewParams,
  describe: describeView,
  async execute(args: SkillViewArgs, ctx: ToolContext): Promise<Result> {
    const name = args.name.trim();
    const lookupError = lookupNameError(name);
    if (lookupError) return fail(name, lookupError, { hint: "Use a skill name or relative path within the skills directory." });
    let alias: string | undefined;
    if (name.includes(":")) {
      const [namespace = "", bare = ""] = [name.slice(0, name.indexOf(":")), name.slice(name.indexOf(":") + 1)];
      if (!NAMESPACE.test(namespace)) return fail(name, `Invalid namespace '${namespace}' in '${name}'. Namespaces must match [a-zA-Z0-9_-]+.`);
      alias = bare ? `${namespace}/${bare}` : undefined;
      const aliasError = alias ? lookupNameError(alias) : undefined;
      if (aliasError) return fail(name, aliasError, { hint: "Use a skill name or relative path within the skills directory." });
    }
    const library = skillLibraryFor(ctx);
    const located = library.locate(name, alias);
    if (!located.ok) return fail(name, located.error, located.extra);
    // SKILL.md (or a flat <name>.md) may be a link or a hard link too: the same rule as a file_path
    const secret = await secretFileReason(located.file, ctx.hermesHome);
    if (secret) return fail(name, `Refusing to show skill '${name}': ${secret}.`);
    const read = readSkillFile(located.file);
    if (!read.ok) return fail(name, `Failed to read skill '${name}': ${read.error}`);
    const threat = skillThreat(read.text);
    if (threat) log.warn(`skill_view: ${located.file} looks unsafe (${threat}); served as data`);
    const { frontmatter } = parseSkillMarkdown(read.text);
    if (!library.fitsPlatform(frontmatter)) return fail(name, `Skill '${name}' is not supported on this platform.`, { readiness_status: "unsupported" });
    const dirName = located.dir ? path.basename(located.dir) : path.basename(located.file, ".md");
    const skillName = frontmatter.name ? String(frontmatter.name) : dirName;
    if (library.isDisabled(skillName) || library.isDisabled(dirName)) {
      return fail(name, `Skill '${skillName}' is disabled. Enable it with \`hermes skills\` or inspect the files directly on disk.`);
    }
    if (args.file_path && located.dir) return serveFile(located.dir, args.file_path, name, ctx.hermesHome);
    const linked = located.dir ? linkedFiles(located.dir) : null;
    const result: Record<string, unknown> = {
      success: true,
      name: skillName,
      description: frontmatter.description ?? "",
      tags: parseTags(hermesMeta(frontmatter, "tags")),
      related_skills: parseTags(hermesMeta(frontmatter, "related_skills")),
      content: read.text,
      path: relativePath(library, located.file),
      skill_dir: located.dir,
      linked_files: linked,
      usage_hint: linked
        ? "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'"
        : null,
      readiness_status: "available",
    };
    if (frontmatter.compatibility) result.compatibility = frontmatter.compatibility;
    if (typeof frontmatter.metadata === "object" && frontmatter.metadata !== null) result.metadata = frontmatter.metadata;
    return { content: JSON.stringify(result), details: { name: skillName, path: located.file, content: read.text } };
  },
});

/** SKILL.md's path as Hermes reports it: relative to the home skills folder, else `<skill folder>/SKILL.md`. */
function relativePath(library: SkillLibrary, file: string): string {
  const rel = path.relative(library.roots.home, file);
  if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel;
  return path.relative(path.dirname(path.dirname(file)), file);
}

/** One file of the skill folder `dir` (Hermes' `_serve_skill_file`), after the path and credential checks. */
async function serveFile(dir: string, filePath: string, label: string, hermesHome: string): Promise<Result> {
  const hint = "Use a relative path within the skill directory";
  const inside = resolveInside(dir, filePath);
  if (!inside.ok) return fail(label, inside.error, { hint });
  if (!isFile(inside.path)) {
    return fail(label, `File '${filePath}' not found in skill '${label}'.`, {
      available_files: availableFiles(dir),
      hint: "Use one of the available file paths listed above",
    });
  }
  const secret = await secretFileReason(inside.path, hermesHome);
  if (secret) return fail(label, `Refusing to show '${filePath}': ${secret}.`, { hint });
  const read = readSkillFile(inside.path);
  if (!read.ok) return fail(label, `Failed to read '${filePath}': ${read.error}`);
  const details = { name: label, path: inside.path, file: filePath, content: read.text, ...(read.binary ? { binary: true } : {}) };
  if (read.binary) return { content: JSON.stringify({ success: true, name: label, file: filePath, is_binary: true, content: read.text }), details };
  return { content: JSON.stringify({ success: true, name: label, file: filePath, content: read.text, file_type: path.extname(inside.path) }), details };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
