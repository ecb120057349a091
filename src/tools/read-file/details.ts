import { z } from "zod";

/** What the editor gets for a successful read. */
export const readFileContentSchema = z.lazy(() => z.object({
  /** Absolute path that was read. */
  path: z.string(),
  offset: z.number(),
  /** The effective limit, after the default and the clamp to 2000. */
  limit: z.number(),
  totalLines: z.number(),
  /** The numbered text, exactly as in the model's `content`. */
  content: z.string(),
}));
export type ReadFileDetails = z.infer<typeof readFileContentSchema>;

/** A re-read of a range that has not changed since the last read (the model got a stub). */
export const readFileUnchangedSchema = z.lazy(() => z.object({ path: z.string(), offset: z.number(), limit: z.number(), unchanged: z.literal(true) }));
export type ReadFileUnchangedDetails = z.infer<typeof readFileUnchangedSchema>;

/** A failed read: the file and what the model was told. */
export const readFileErrorSchema = z.lazy(() => z.object({ path: z.string(), error: z.string() }));
export type ReadFileErrorDetails = z.infer<typeof readFileErrorSchema>;

/** Every `read_file` result's details (the union `ToolDetailsMap` names). */
export const readFileDetailsSchema = z.lazy(() => z.union([readFileContentSchema, readFileUnchangedSchema, readFileErrorSchema]));
export type ReadFileResultDetails = z.infer<typeof readFileDetailsSchema>;
