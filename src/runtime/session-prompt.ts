import { readFile } from "node:fs/promises";
import { release, type } from "node:os";
import { CHARS_PER_TOKEN } from "../agent/context.js";
import { buildSystemPrompt, PROJECT_CONTEXT_MAX_CHARS } from "../agent/system-prompt.js";
import { discoverProjectContext } from "./project-context.js";
import type { HermesConfig } from "../config/schema.js";
import { memoryFilesFor } from "../tools/memory/memory.js";
import { memorySnapshot } from "../tools/memory/snapshot.js";
import { skillLibraryFor } from "../tools/skills/skill-library.js";
import { skillsIndexSection } from "../tools/skills/skills-index.js";
import { chooseShell } from "../tools/terminal/shell.js";
import { TOOLSETS } from "../tools/toolsets.js";

export interface SessionPromptInput {
  /** `$HERMES_HOME/SOUL.md`; its text replaces the default identity when present and non-blank. */
  soulFile: string;
  cwd: string;
  model: string;
  provider: string;
  startedAt: Date;
  /** The model's window in tokens; small windows get a smaller project context cap. */
  contextWindow: number;
  /** The `# Memory` section, when the session's toolsets include memory. */
  memory?: string;
  /** The `## Skills` index, when the session's toolsets include skill_view and there are skills. */
  skills?: string;
}

/**
 * The system prompt of a new (or rebuilt) session: SOUL.md or the default identity, guidance,
 * the cwd's project context files (capped at 20,000 chars, or 10 % of a small window), and the
 * environment (OS, the terminal tool's shell, cwd, date, model, provider). Reads files; never
 * throws for missing or unreadable ones. Called once per session: the result is stored and
 * reused byte for byte.
 */
export async function buildSessionSystemPrompt(input: SessionPromptInput): Promise<string> {
  const [identity, project] = await Promise.all([readFile(input.soulFile, "utf8").catch(() => undefined), discoverProjectContext(input.cwd)]);
  return buildSystemPrompt({
    ...(identity?.trim() ? { identity } : {}),
    ...(input.skills ? { skills: input.skills } : {}),
    ...(input.memory ? { memory: input.memory } : {}),
    ...(project ? { projectContext: project.files } : {}),
    projectContextMaxChars: projectContextCap(input.contextWindow),
    cwd: input.cwd,
    model: input.model,
    provider: input.provider,
    startedAt: input.startedAt,
    os: `${type()} ${release()} (${process.platform})`,
    shell: chooseShell(process.env)?.label ?? "none found (commands cannot run)",
  });
}

/** 20,000 chars, or 10 % of the window (at least 2,000 chars) when that is less. */
export function projectContextCap(contextWindow: number): number {
  return Math.min(PROJECT_CONTEXT_MAX_CHARS, Math.max(2_000, Math.floor(contextWindow * CHARS_PER_TOKEN * 0.1)));
}

/**
 * Whether a stored system prompt still describes the session: it ends with the `Model:` and
 * `Provider:` lines of the model and provider it will now run with.
 */
export function storedPromptFits(stored: string | null | undefined, model: string, provider: string): stored is string {
  return typeof stored === "string" && stored.endsWith(`\nModel: ${model}\nProvider: ${provider}`);
}

/** The frozen MEMORY.md / USER.md snapshot (Hermes' memory section), when the session's `tools` include `memory`. */
export function memorySection(config: HermesConfig, tools: ReadonlySet<string>, hermesHome: string): string | undefined {
  if (!tools.has("memory")) return undefined;
  const targets = [...(config.memory.memory_enabled ? (["memory"] as const) : []), ...(config.memory.user_profile_enabled ? (["user"] as const) : [])];
  if (targets.length === 0) return undefined;
  return memorySnapshot(memoryFilesFor({ hermesHome, config }), targets);
}

/**
 * The `## Skills` index of the skills `cwd`'s session can see (Hermes' skills section), when its
 * `tools` include `skill_view`; undefined without skills. Read once, with the rest of the prompt.
 */
export function skillsSection(config: HermesConfig, tools: ReadonlySet<string>, where: { hermesHome: string; cwd: string; env: NodeJS.ProcessEnv }): string | undefined {
  if (!tools.has("skill_view")) return undefined;
  const library = skillLibraryFor({ ...where, config });
  const toolsets = new Set(Object.keys(TOOLSETS).filter((name) => TOOLSETS[name]?.tools?.some((tool) => tools.has(tool))));
  return skillsIndexSection(library.entries(), { categoryDescriptions: library.categoryDescriptions(), availableTools: tools, availableToolsets: toolsets });
}
