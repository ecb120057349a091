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

const skillManageParams = z.lazy(() => z.object({
  action: skillManageActionSchema,
  name: z.string().describe("Skill name (lowercase, hyphens/underscores, max 64 chars); an existing skill for every action but create."),
  content: z.string().optional().describe("create / edit: the full SKILL.md (YAML frontmatter + markdown body); for edit, read it with skill_view first."),
  old_string: z.string().optional().describe("patch: text to find, unique unless replace_all; include enough context."),
  new_string: z.string().optional().describe('patch: the replacement ("" deletes the match).'),
  replace_all: z.boolean().optional().describe("patch: replace every match instead of requiring one (default false)."),
  category: z.string().optional().describe("create: a category folder to put it in, e.g. 'devops'."),
  file_path: z
    .string()
    .optional()
    .describe("A supporting file in the skill: required for write_file / remove_file (under references/, templates/, scripts/ or assets/); patch defaults to SKILL.md."),
  file_content: z.string().optional().describe("write_file: the file's content."),
  absorbed_into: z.string().optional().describe('delete: the existing skill this one was merged into, or "" when pruned with no replacement.'),
}));

export type SkillManageArgs = z.infer<typeof skillManageParams>;

const DESCRIPTION = [
  "Manage skills, your procedural memory: reusable approaches for recurring tasks. New skills go to $HERMES_HOME/skills/;",
  "skills from skills.external_dirs or a project's skills folder are read-only.",
  "Actions: create (full SKILL.md, optional category), patch (old_string/new_string; preferred for fixes),",
  "edit (full rewrite; major overhauls only), delete, write_file / remove_file (supporting files).",
  "Create when a complex task succeeded, errors were overcome, a user-corrected approach worked, a non-trivial workflow",
  "was found, or the user asks you to remember a procedure; skip simple one-offs, and offer to save the approach after",
  "difficult or iterative tasks. When a skill you used was stale, wrong or missed a pitfall, patch it right away.",
  "Confirm with the user before creating or deleting. Good skills: trigger conditions, numbered steps with exact commands,",
  "pitfalls, verification. skill_view() shows format examples.",
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
