import { z } from "zod";

export const patchModeSchema = z.lazy(() => z.enum(["replace", "patch"]));
export type PatchMode = z.infer<typeof patchModeSchema>;

/** One file a patch changed, as `FileEdit` (ports.ts) has it. */
const fileEditSchema = z.lazy(() => z.object({
  path: z.string(),
  oldText: z.string().nullable(),
  newText: z.string().nullable(),
  fromPath: z.string().optional(),
}));

/**
 * What the editor gets from a successful patch call: every file's whole content before and after
 * (a move has `fromPath`; a deletion has `newText: null`; a creation `oldText: null`) and one
 * unified diff of all of them. `files` is empty when nothing needed changing.
 */
export const patchAppliedSchema = z.lazy(() => z.object({ mode: patchModeSchema, files: z.array(fileEditSchema), diff: z.string() }));
export type PatchDetails = z.infer<typeof patchAppliedSchema>;

/** A failed patch call: what the model was told, and the file of a replace-mode call. */
export const patchErrorSchema = z.lazy(() => z.object({ mode: patchModeSchema, error: z.string(), path: z.string().optional() }));
export type PatchErrorDetails = z.infer<typeof patchErrorSchema>;

/** Every `patch` result's details (the union `ToolDetailsMap` names). */
export const patchDetailsSchema = z.lazy(() => z.union([patchAppliedSchema, patchErrorSchema]));
export type PatchResultDetails = z.infer<typeof patchDetailsSchema>;
