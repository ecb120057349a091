import { z } from "zod";

/**
 * What the editor gets for a write (also for "unchanged"): the whole file before and after, and a
 * unified diff (`--- a/<path>` / `+++ b/<path>`, "" when nothing changed).
 */
export const writeFileWrittenSchema = z.lazy(() => z.object({
  /** Absolute path written. */
  path: z.string(),
  /** Content before; null when the file was created. */
  oldText: z.string().nullable(),
  /** Content written, exactly as stored (BOM and line endings included). */
  newText: z.string(),
  diff: z.string(),
}));
export type WriteFileDetails = z.infer<typeof writeFileWrittenSchema>;

/** A failed write: the file and what the model was told. */
export const writeFileErrorSchema = z.lazy(() => z.object({ path: z.string(), error: z.string() }));
export type WriteFileErrorDetails = z.infer<typeof writeFileErrorSchema>;

/** Every `write_file` result's details (the union `ToolDetailsMap` names). */
export const writeFileDetailsSchema = z.lazy(() => z.union([writeFileWrittenSchema, writeFileErrorSchema]));
export type WriteFileResultDetails = z.infer<typeof writeFileDetailsSchema>;
