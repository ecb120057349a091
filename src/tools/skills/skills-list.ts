import { z } from "zod";
import { defineTool, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import type { SkillsListDetails } from "./details.js";
import { skillLibraryFor, type SkillEntry } from "./skill-library.js";
import { skillThreat } from "./skill-scan.js";

const skillsListParams = z.lazy(() => z.object({
  category: z.string().optional().describe("Optional category filter to narrow results"),
}));

export type SkillsListArgs = z.infer<typeof skillsListParams>;

/** One skill in the result: Hermes' `{name, description, category}`, a flagged description or category (a folder name) shown blocked. */
function listed(entry: SkillEntry): { name: string; description: string; category: string | null } {
  const threat = skillThreat(`${entry.name}\n${entry.description}`);
  const categoryThreat = entry.category === null ? undefined : skillThreat(entry.category);
  return {
    name: entry.name,
    description: threat ? `[BLOCKED: ${threat}]` : entry.description,
    category: categoryThreat ? `[BLOCKED: ${categoryThreat}]` : entry.category,
  };
}

function describeList(args: SkillsListArgs): ToolDescription {
  return { title: args.category ? `skills: list ${args.category}` : "skills: list", locations: [] };
}

/**
 * `skills_list`, as Hermes has it: the visible skills (see SkillLibrary) with name, description
 * and category only — progressive disclosure; `skill_view` loads one. Result
 * `{success, skills, categories, count, hint}`, or `{success, skills: [], categories: [], message}`
 * when there are none. Reads only; never throws.
 */
export const skillsListTool = defineTool({
  name: "skills_list",
  description: "List available skills (name + description). Use skill_view(name) to load full content.",
  kind: "read",
  mutating: false,
  params: skillsListParams,
  describe: describeList,
  async execute(args: SkillsListArgs, ctx: ToolContext): Promise<ToolResult<SkillsListDetails>> {
    const all = skillLibraryFor(ctx).entries();
    if (all.length === 0) {
      return {
        content: JSON.stringify({ success: true, skills: [], categories: [], message: "No skills found in skills/ directory." }),
        details: { skills: [], categories: [] },
      };
    }
    const skills = (args.category ? all.filter((entry) => entry.category === args.category) : all).map(listed);
    const categories = [...new Set(skills.map((skill) => skill.category).filter((category): category is string => Boolean(category)))].sort();
    return {
      content: JSON.stringify({
        success: true,
        skills,
        categories,
        count: skills.length,
        hint: "Use skill_view(name) to see full content, tags, and linked files",
      }),
      details: { skills, categories },
    };
  },
});
