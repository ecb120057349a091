export const DEFAULT_IDENTITY =
  "You are Hermes Agent, built by Nous Research, working as a coding agent inside the user's editor. " +
  "Be direct: match the length of your reply to the weight of the ask. Finished work gets a short report of " +
  "what changed, what was verified, and what is left.";

const TOOL_GUIDANCE = [
  "# Using tools",
  "- Use your tools to look at the workspace instead of guessing; never invent file contents or command output.",
  "- Prefer the file tools (read_file, search_files, patch, write_file) over cat, sed or grep in a terminal.",
  "- Batch independent reads and searches into one response; they run together.",
  "- Verify your work (read it back, run the tests) before you say it is done.",
].join("\n");

export interface SystemPromptInput {
  /** Replaces the default identity (the contents of `$HERMES_HOME/SOUL.md`). */
  identity?: string;
  cwd: string;
  model: string;
  provider: string;
  /** When the session started; the prompt is built once per session and stays byte-stable. */
  startedAt: Date;
  platform?: string;
}

/** Builds the session's system prompt. Pure: the same input gives the same bytes. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const identity = input.identity?.trim() || DEFAULT_IDENTITY;
  const environment = [
    "# Environment",
    `Working directory: ${input.cwd}`,
    ...(input.platform ? [`Platform: ${input.platform}`] : []),
    `Conversation started: ${input.startedAt.toISOString().slice(0, 10)}`,
    `Model: ${input.model}`,
    `Provider: ${input.provider}`,
  ].join("\n");
  return [identity, TOOL_GUIDANCE, environment].join("\n\n");
}
