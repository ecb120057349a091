import { z } from "zod";

/** One skill as `skills_list` showed it. */
const listedSkillSchema = z.lazy(() => z.object({ name: z.string(), category: z.string().nullable(), description: z.string() }));

/** What the editor gets from `skills_list`: the skills shown (possibly none), or what went wrong. */
export const skillsListDetailsSchema = z.lazy(() => z.union([
  z.object({ skills: z.array(listedSkillSchema), categories: z.array(z.string()) }),
  z.object({ error: z.string() }),
]));
export type SkillsListDetails = z.infer<typeof skillsListDetailsSchema>;

/** A skill file `skill_view` returned: SKILL.md (no `file`) or one linked file. */
export const skillViewContentSchema = z.lazy(() => z.object({
  /** The skill's name as resolved. */
  name: z.string(),
  /** Absolute path of the file shown (the editor's location). */
  path: z.string(),
  /** The linked file, relative to the skill folder; absent for SKILL.md. */
  file: z.string().optional(),
  /** What the model got: the file's text, or a one-line note for a binary file. */
  content: z.string(),
  binary: z.boolean().optional(),
}));
export type SkillViewDetails = z.infer<typeof skillViewContentSchema>;

/** A refused or failed `skill_view`: the name asked for and what the model was told. */
export const skillViewErrorSchema = z.lazy(() => z.object({ name: z.string(), error: z.string() }));

export const skillViewDetailsSchema = z.lazy(() => z.union([skillViewContentSchema, skillViewErrorSchema]));
export type SkillViewResultDetails = z.infer<typeof skillViewDetailsSchema>;

export const skillManageActionSchema = z.lazy(() => z.enum(["create", "edit", "patch", "delete", "write_file", "remove_file"]));
export type SkillManageAction = z.infer<typeof skillManageActionSchema>;

/** One file a `skill_manage` call changed (the shape of `FileEdit`): null text = absent on that side. */
const skillFileEditSchema = z.lazy(() => z.object({ path: z.string(), oldText: z.string().nullable(), newText: z.string().nullable() }));

/**
 * A `skill_manage` call that changed the skill: each file's whole text before and after (a
 * created file has `oldText: null`, a removed one `newText: null`; a deleted skill shows its
 * SKILL.md going away). `files` is empty when nothing needed changing.
 */
export const skillManageAppliedSchema = z.lazy(() => z.object({
  action: skillManageActionSchema,
  name: z.string(),
  message: z.string(),
  /** The skill's folder. */
  dir: z.string(),
  files: z.array(skillFileEditSchema),
}));
export type SkillManageDetails = z.infer<typeof skillManageAppliedSchema>;

/** A refused `skill_manage` call: nothing was written. */
export const skillManageErrorSchema = z.lazy(() => z.object({ action: skillManageActionSchema, name: z.string(), error: z.string() }));

export const skillManageDetailsSchema = z.lazy(() => z.union([skillManageAppliedSchema, skillManageErrorSchema]));
export type SkillManageResultDetails = z.infer<typeof skillManageDetailsSchema>;
