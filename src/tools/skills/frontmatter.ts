/**
 * SKILL.md as Hermes reads and validates it (`agent/skill_utils.py`, `tools/skill_manager_tool.py`):
 * YAML frontmatter between `---` fences, then a markdown body; the limits and name rules an
 * agent-written skill must meet; the `platforms:` and `environments:` gates. Pure apart from the
 * environment probes; never throws.
 */
import { existsSync } from "node:fs";
import { parse } from "yaml";

/** Longest skill (and category) name; longer names are refused on create and cut in listings. */
export const MAX_NAME_LENGTH = 64;
/** Longest frontmatter description an agent may write; listings cut longer ones. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Most characters of SKILL.md (or any text file) an agent may write. */
export const MAX_SKILL_CONTENT_CHARS = 100_000;
/** Most bytes of one supporting file. */
export const MAX_SKILL_FILE_BYTES = 1_048_576;
/** The folders of a skill `write_file` / `remove_file` may touch, and `skill_view` lists. */
export const SUPPORT_DIRS = ["references", "templates", "assets", "scripts"] as const;

/** As Python's safe_load: a repeated key keeps its last value; warnings are not printed. */
const YAML_OPTIONS = { uniqueKeys: false, logLevel: "error", maxAliasCount: 50 } as const;

/** Skill and category names: filesystem-safe and URL-friendly. */
const VALID_NAME = /^[a-z0-9][a-z0-9._-]*$/;

export type Frontmatter = Record<string, unknown>;

export interface ParsedSkill {
  frontmatter: Frontmatter;
  body: string;
}

/**
 * Splits SKILL.md text into its frontmatter and body, as Hermes' `parse_frontmatter`: a leading
 * BOM is dropped; without an opening `---` or a closing `---` line the whole text is the body;
 * YAML that does not parse falls back to `key: value` lines; a non-mapping gives `{}`.
 */
export function parseSkillMarkdown(text: string): ParsedSkill {
  const content = text.startsWith("\ufeff") ? text.slice(1) : text;
  const fence = splitFence(content);
  if (!fence) return { frontmatter: {}, body: content };
  let frontmatter: Frontmatter = {};
  try {
    const parsed: unknown = parse(fence.yaml, YAML_OPTIONS);
    if (isMapping(parsed)) frontmatter = parsed;
  } catch {
    for (const line of fence.yaml.trim().split("\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) frontmatter[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
  }
  return { frontmatter, body: fence.body };
}

/** The YAML between the fences and the body after them, or undefined without both fences. */
function splitFence(content: string): { yaml: string; body: string } | undefined {
  if (!content.startsWith("---")) return undefined;
  const end = /\n---\s*\n/.exec(content.slice(3));
  if (!end) return undefined;
  return { yaml: content.slice(3, end.index + 3), body: content.slice(end.index + end[0].length + 3) };
}

function isMapping(value: unknown): value is Frontmatter {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Why `content` is not a valid SKILL.md, or undefined (Hermes' `_validate_frontmatter`): not
 * empty, opens and closes a frontmatter fence, the YAML parses to a mapping with `name` and
 * `description` (at most MAX_DESCRIPTION_LENGTH chars), and a body follows.
 */
export function skillMarkdownError(content: string): string | undefined {
  if (!content.trim()) return "Content cannot be empty.";
  const text = content.replace(/^\ufeff+/, "");
  if (!text.startsWith("---")) return "SKILL.md must start with YAML frontmatter (---). See existing skills for format.";
  const fence = splitFence(text);
  if (!fence) return "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line.";
  let parsed: unknown;
  try {
    parsed = parse(fence.yaml, YAML_OPTIONS);
  } catch (error) {
    return `YAML frontmatter parse error: ${(error as Error).message}`;
  }
  if (!isMapping(parsed)) return "Frontmatter must be a YAML mapping (key: value pairs).";
  if (!("name" in parsed)) return "Frontmatter must include 'name' field.";
  if (!("description" in parsed)) return "Frontmatter must include 'description' field.";
  if (String(parsed.description).length > MAX_DESCRIPTION_LENGTH) return `Description exceeds ${MAX_DESCRIPTION_LENGTH} characters.`;
  if (!fence.body.trim()) return "SKILL.md must have content after the frontmatter (instructions, procedures, etc.).";
  return undefined;
}

/** Why `name` may not name a new skill, or undefined. */
export function skillNameError(name: string): string | undefined {
  if (!name) return "Skill name is required.";
  if (name.length > MAX_NAME_LENGTH) return `Skill name exceeds ${MAX_NAME_LENGTH} characters.`;
  if (!VALID_NAME.test(name)) {
    return `Invalid skill name '${name}'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit.`;
  }
  return undefined;
}

/** Why `category` may not name a category folder (one path segment), or undefined; blank means none. */
export function categoryError(category: string | undefined): string | undefined {
  const value = category?.trim();
  if (!value) return undefined;
  const invalid = `Invalid category '${value}'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name.`;
  if (value.includes("/") || value.includes("\\")) return invalid;
  if (value.length > MAX_NAME_LENGTH) return `Category exceeds ${MAX_NAME_LENGTH} characters.`;
  return VALID_NAME.test(value) ? undefined : invalid;
}

/** Why `content` is too large to write as `label`, or undefined. */
export function contentSizeError(content: string, label = "SKILL.md"): string | undefined {
  if (content.length <= MAX_SKILL_CONTENT_CHARS) return undefined;
  return (
    `${label} content is ${content.length.toLocaleString("en-US")} characters (limit: ${MAX_SKILL_CONTENT_CHARS.toLocaleString("en-US")}). ` +
    "Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/."
  );
}

/** Hermes' platform names and the Node platforms they match (by prefix, as Python's `sys.platform`). */
const PLATFORM_MAP: Readonly<Record<string, string>> = { macos: "darwin", linux: "linux", windows: "win32" };

/** Whether a skill's `platforms:` allows `platform` (absent or empty allows every platform). */
export function matchesPlatform(frontmatter: Frontmatter, platform: string = process.platform): boolean {
  const raw = frontmatter.platforms;
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  if (list.length === 0) return true;
  return list.some((entry) => {
    const normalized = String(entry).toLowerCase().trim();
    return platform.startsWith(PLATFORM_MAP[normalized] ?? normalized);
  });
}

/**
 * Whether a skill's `environments:` (`kanban`, `docker`, `s6`) fits this process — an offer-time
 * filter for listings only; explicit loads ignore it. Unknown tags fail open, as in Hermes.
 */
export function matchesEnvironment(frontmatter: Frontmatter, env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = frontmatter.environments;
  const list = (Array.isArray(raw) ? raw : raw ? [raw] : []).map((entry) => String(entry).toLowerCase().trim()).filter(Boolean);
  if (list.length === 0) return true;
  return list.some((tag) => {
    if (tag === "kanban") return Boolean(env.HERMES_KANBAN_TASK || env.HERMES_KANBAN_BOARD);
    if (tag === "docker") return existsSync("/.dockerenv") || existsSync("/run/.containerenv");
    if (tag === "s6") return existsSync("/run/s6") || existsSync("/package/admin/s6-overlay");
    return true;
  });
}

/** Tags from frontmatter: a list, `"[a, b]"` or `"a, b"`. */
export function parseTags(value: unknown): string[] {
  if (!value) return [];
  if (Array.isArray(value)) return value.filter(Boolean).map((tag) => String(tag).trim());
  let text = String(value).trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  return text
    .split(",")
    .map((tag) => tag.trim().replace(/^["']+|["']+$/g, ""))
    .filter(Boolean);
}

/** `metadata.hermes.<key>` when present, else the top-level `<key>` (agentskills.io layout first). */
export function hermesMeta(frontmatter: Frontmatter, key: string): unknown {
  const metadata = frontmatter.metadata;
  const hermes = isMapping(metadata) && isMapping(metadata.hermes) ? metadata.hermes : {};
  return hermes[key] || frontmatter[key];
}

/** The `metadata.hermes` conditions Hermes reads for the index (`fallback_for_*`, `requires_*`). */
export interface SkillConditions {
  fallbackForToolsets: string[];
  requiresToolsets: string[];
  fallbackForTools: string[];
  requiresTools: string[];
}

export function skillConditions(frontmatter: Frontmatter): SkillConditions {
  const metadata = frontmatter.metadata;
  const hermes = isMapping(metadata) && isMapping(metadata.hermes) ? metadata.hermes : {};
  const list = (key: string): string[] => (Array.isArray(hermes[key]) ? (hermes[key] as unknown[]).map(String) : []);
  return {
    fallbackForToolsets: list("fallback_for_toolsets"),
    requiresToolsets: list("requires_toolsets"),
    fallbackForTools: list("fallback_for_tools"),
    requiresTools: list("requires_tools"),
  };
}
