import { z } from "zod";
import { errorMessage } from "../../shared/errors.js";
import { defineTool, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import { skillManageActionSchema, type SkillManageAction, type SkillManageResultDetails } from "./details.js";
import {
  createSkill,
  deleteSkill,
  editSkill,
  patchSkill,
  removeSkillFile,
  writeSkillFile,
  type SkillManageInput,
  type SkillManageOutcome,
} from "./skill-manage-actions.js";
import { skillLibraryFor, type SkillLibrary } from "./skill-library.js";

const skillManageParams = z.object({
  action: skillManageActionSchema.describe("The action to perform."),
  name: z.string().describe("Skill name (lowercase, hyphens/underscores, max 64 chars). Must match an existing skill for patch/edit/delete/write_file/remove_file."),
  content: z
    .string()
    .optional()
    .describe("Full SKILL.md content (YAML frontmatter + markdown body). Required for 'create' and 'edit'. For 'edit', read the skill first with skill_view() and provide the complete updated text."),
  old_string: z.string().optional().describe("Text to find in the file (required for 'patch'). Must be unique unless replace_all=true; include enough surrounding context."),
  new_string: z.string().optional().describe("Replacement text (required for 'patch'). Can be empty string to delete the matched text."),
  replace_all: z.boolean().optional().describe("For 'patch': replace all occurrences instead of requiring a unique match (default: false)."),
  category: z.string().optional().describe("Optional category/domain for organizing the skill (e.g., 'devops', 'data-science'). Creates a subdirectory grouping. Only used with 'create'."),
  file_path: z
    .string()
    .optional()
    .describe("Path to a supporting file within the skill directory. For 'write_file'/'remove_file': required, under references/, templates/, scripts/, or assets/. For 'patch': optional, defaults to SKILL.md."),
  file_content: z.string().optional().describe("Content for the file. Required for 'write_file'."),
  absorbed_into: z
    .string()
    .optional()
    .describe("For 'delete' only: the umbrella skill this one was merged into (it must exist), or an empty string when the skill is pruned with no replacement."),
});

export type SkillManageArgs = z.infer<typeof skillManageParams>;

const DESCRIPTION = [
  "Manage skills (create, update, delete). Skills are your procedural memory: reusable approaches for recurring task types.",
  "New skills go to $HERMES_HOME/skills/; skills from skills.external_dirs or a project's skills folder are read-only.",
  "Actions: create (full SKILL.md + optional category), patch (old_string/new_string — preferred for fixes),",
  "edit (full SKILL.md rewrite — major overhauls only), delete, write_file, remove_file (supporting files).",
  "Create when a complex task succeeded, errors were overcome, a user-corrected approach worked, a non-trivial workflow",
  "was discovered, or the user asks you to remember a procedure. Update when instructions are stale or wrong or steps",
  "or pitfalls are missing; if you used a skill and hit issues it did not cover, patch it right away.",
  "After difficult or iterative tasks, offer to save the approach as a skill; skip simple one-offs. Confirm with the user",
  "before creating or deleting. Good skills: trigger conditions, numbered steps with exact commands, a pitfalls section,",
  "verification steps. Use skill_view() to see format examples.",
].join(" ");

const ACTIONS: Readonly<Record<SkillManageAction, (library: SkillLibrary, input: SkillManageInput) => SkillManageOutcome>> = {
  create: createSkill,
  edit: editSkill,
  patch: patchSkill,
  delete: deleteSkill,
  write_file: writeSkillFile,
  remove_file: removeSkillFile,
};

/** Arguments an action cannot do without, with Hermes' messages; undefined when they are there. */
function missingArgument(args: SkillManageArgs): string | undefined {
  switch (args.action) {
    case "create":
      return args.content ? undefined : "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).";
    case "edit":
      return args.content ? undefined : "content is required for 'edit'. Provide the full updated SKILL.md text.";
    case "patch":
      if (!args.old_string) return "old_string is required for 'patch'. Provide the text to find.";
      return args.new_string === undefined ? "new_string is required for 'patch'. Use empty string to delete matched text." : undefined;
    case "write_file":
      if (!args.file_path) return "file_path is required for 'write_file'. Example: 'references/api-guide.md'";
      return args.file_content === undefined ? "file_content is required for 'write_file'." : undefined;
    case "remove_file":
      return args.file_path ? undefined : "file_path is required for 'remove_file'.";
    case "delete":
      return undefined;
  }
}

/** Title `skill_manage: <action> <name>`, with the file for the actions on one (`(references/x.md)`). */
function describeManage(args: SkillManageArgs): ToolDescription {
  const file = args.file_path && args.action !== "create" && args.action !== "edit" && args.action !== "delete" ? ` (${args.file_path})` : "";
  return { title: `skill_manage: ${args.action} ${args.name}${file}`, locations: [] };
}

/**
 * `skill_manage`, as Hermes has it (see skill-manage-actions.ts): writes only in
 * `$HERMES_HOME/skills`, asks no approval (Hermes' write gate is off by default; like memory,
 * skills are the agent's own store), refuses anything that fails validation or the content scan
 * before writing. Results `{success, message, …}` or `{success: false, error, …}`; never throws
 * for anything the model can fix.
 */
export const skillManageTool = defineTool({
  name: "skill_manage",
  description: DESCRIPTION,
  kind: "edit",
  mutating: true,
  params: skillManageParams,
  describe: describeManage,
  async execute(args: SkillManageArgs, ctx: ToolContext): Promise<ToolResult<SkillManageResultDetails>> {
    const fail = (error: string, extra: Record<string, unknown> = {}): ToolResult<SkillManageResultDetails> => ({
      content: JSON.stringify({ success: false, error, ...extra }),
      details: { action: args.action, name: args.name, error },
      isError: true,
    });
    const missing = missingArgument(args);
    if (missing) return fail(missing);
    let outcome: SkillManageOutcome;
    try {
      outcome = ACTIONS[args.action](skillLibraryFor(ctx), args);
    } catch (error) {
      return fail(`${args.action} failed: ${errorMessage(error)}`);
    }
    if (!outcome.ok) return fail(outcome.error, outcome.extra);
    const message = typeof outcome.output.message === "string" ? outcome.output.message : "";
    return { content: JSON.stringify(outcome.output), details: { action: args.action, name: args.name, message, dir: outcome.dir, files: outcome.files } };
  },
});
