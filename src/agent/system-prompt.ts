/**
 * The session's system prompt (Hermes' `prompt_builder`), pure: identity, tool-use guidance,
 * the skills index and memory, project context, environment. Built once per session and stored;
 * sent byte for byte on every call so provider prompt caches hit. File discovery lives in
 * `runtime/project-context.ts`.
 */

export const DEFAULT_IDENTITY =
  "You are Hermes Agent, built by Nous Research, working as a coding agent inside the user's editor. " +
  "Be direct: match the length of your reply to the weight of the ask. Finished work gets a short report of " +
  "what changed, what was verified, and what is left. No filler, no flattery; depth is earned by the problem.";

const TOOL_GUIDANCE = [
  "# Using tools",
  "- Use your tools to look at the workspace instead of guessing; never invent file contents or command output.",
  "- Prefer the file tools (read_file, search_files, patch, write_file) over cat, head, sed, grep or echo in a terminal.",
  "- Batch independent reads and searches into one response; they run together.",
  "- Verify your work (read it back, run the tests or the build) before you say it is done; report what you could not verify.",
  "- Finish the job: deliver working changes backed by real tool output, not a plan of what you would do.",
].join("\n");

/** Hermes adds this for model families that tend to describe actions instead of taking them. */
const TOOL_ENFORCEMENT = [
  "# Tool-use enforcement",
  "You MUST use your tools to take action: do not describe what you would do or plan to do without doing it. " +
    "Every response should either contain tool calls that make progress, or deliver a final result to the user.",
].join("\n");
const ENFORCED_MODELS = /gpt|codex|gemini|gemma|grok|glm|qwen|deepseek|muse/i;

const PROJECT_CONTEXT_INTRO = "# Project Context\n\nThe following project context files have been loaded and should be followed:";
/** Default cap on project context text (all files together), in characters. */
export const PROJECT_CONTEXT_MAX_CHARS = 20_000;
const HEAD_RATIO = 0.7;
const TAIL_RATIO = 0.2;
/** Cap on a SOUL.md identity, in characters. */
const IDENTITY_MAX_CHARS = 20_000;

/** One project context file as discovered (e.g. `AGENTS.md`, `packages/web/AGENTS.md`). */
export interface ProjectContextFile {
  /** Section heading: the path relative to the git root (or the cwd when there is none). */
  label: string;
  /** Absolute path, named in the truncation marker so the model can read the rest. */
  path: string;
  content: string;
}

export interface SystemPromptInput {
  /** Replaces the default identity (the contents of `$HERMES_HOME/SOUL.md`). */
  identity?: string;
  /**
   * The `## Skills` index (guidance and the skills by category, descriptions only), when the
   * session has skill_view and there are skills. Placed before memory, as Hermes does.
   */
  skills?: string;
  /** The `# Memory` section (guidance and the frozen snapshot of MEMORY.md / USER.md), when the session has memory. */
  memory?: string;
  /** The project context files that loaded (one kind only; see `runtime/project-context.ts`). */
  projectContext?: readonly ProjectContextFile[];
  /** Cap on all project context text together; default 20,000 chars. */
  projectContextMaxChars?: number;
  cwd: string;
  model: string;
  provider: string;
  /** When the session started; the prompt is built once per session and stays byte-stable. */
  startedAt: Date;
  /** Operating system, e.g. `Linux 6.8.0 (linux)`. */
  os?: string;
  /** The shell the terminal tool runs commands in. */
  shell?: string;
}

/**
 * Builds the session's system prompt. Pure: the same input gives the same bytes. Ends with the
 * `Model:` and `Provider:` lines, in that order (a restored session checks them).
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const identity = capWithMarker(input.identity?.trim() || DEFAULT_IDENTITY, IDENTITY_MAX_CHARS, "SOUL.md", undefined);
  const sections = [identity, TOOL_GUIDANCE];
  if (ENFORCED_MODELS.test(input.model)) sections.push(TOOL_ENFORCEMENT);
  if (input.skills) sections.push(input.skills);
  if (input.memory) sections.push(input.memory);
  const context = renderProjectContext(input.projectContext ?? [], input.projectContextMaxChars ?? PROJECT_CONTEXT_MAX_CHARS);
  if (context) sections.push(context);
  sections.push(
    [
      "# Environment",
      ...(input.os ? [`Operating system: ${input.os}`] : []),
      ...(input.shell ? [`Shell: ${input.shell}`] : []),
      `Working directory: ${input.cwd}`,
      `Conversation started: ${input.startedAt.toISOString().slice(0, 10)}`,
      `Model: ${input.model}`,
      `Provider: ${input.provider}`,
    ].join("\n"),
  );
  return sections.join("\n\n");
}

/**
 * The `# Project Context` section, or "" without files. The files share `maxChars`: a file
 * smaller than its share keeps all of it and leaves the rest to the others; a larger one keeps
 * its head and tail around a marker that names the file to `read_file` for the full text.
 */
export function renderProjectContext(files: readonly ProjectContextFile[], maxChars = PROJECT_CONTEXT_MAX_CHARS): string {
  const kept = files.map((file) => ({ ...file, body: file.content.trim() })).filter((file) => file.body !== "");
  if (kept.length === 0) return "";
  const shares = allocate(
    kept.map((file) => file.body.length),
    maxChars,
  );
  const sections = kept.map((file, index) => `## ${file.label}\n\n${capWithMarker(file.body, shares[index] ?? 0, file.label, file.path)}`);
  return [PROJECT_CONTEXT_INTRO, ...sections].join("\n\n");
}

/** Splits `budget` over items of `sizes` (water-filling): small items whole, the rest equal shares. */
function allocate(sizes: readonly number[], budget: number): number[] {
  const shares = sizes.map(() => 0);
  const order = sizes.map((size, index) => ({ size, index })).sort((a, b) => a.size - b.size || a.index - b.index);
  let remaining = Math.max(0, budget);
  order.forEach(({ size, index }, position) => {
    const share = Math.min(size, Math.floor(remaining / (order.length - position)));
    shares[index] = share;
    remaining -= share;
  });
  return shares;
}

/** Keeps `text` whole within `max` chars, else its head (70 %) and tail (20 %) around a marker. */
function capWithMarker(text: string, max: number, label: string, path: string | undefined): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * HEAD_RATIO);
  const tail = Math.floor(max * TAIL_RATIO);
  const how = path ? `Use read_file on ${path} to read the full file.` : "The rest was left out.";
  const marker = `[...truncated ${label}: kept ${head}+${tail} of ${text.length} chars. ${how}]`;
  return `${text.slice(0, head)}\n\n${marker}\n\n${tail > 0 ? text.slice(text.length - tail) : ""}`.trimEnd();
}
