import { z } from "zod";

export const searchMatchSchema = z.lazy(() => z.object({
  /** Relative to the search root, `/`-separated. */
  path: z.string(),
  line: z.number(),
  text: z.string(),
}));
export type SearchMatch = z.infer<typeof searchMatchSchema>;

/** `details` of a `search_files` result, for the editor. Paths are relative to `path`. Failures carry none. */
export const searchFilesDetailsSchema = z.lazy(() => z.object({
  /** `output_mode` for content search; `files_only` for file search (it lists files). */
  mode: z.enum(["content", "files_only", "count"]),
  target: z.enum(["content", "files"]),
  pattern: z.string(),
  /** Absolute search root (a directory, or the one file searched). */
  path: z.string(),
  /** Matching lines (content), files (files_only, file search) or files with a count (count). */
  total: z.number(),
  /** More results follow this page; `nextOffset` says where. */
  truncated: z.boolean(),
  nextOffset: z.number().optional(),
  /** Collection stopped at `MAX_COLLECTED` entries: `total` is a lower bound. */
  capped: z.boolean().optional(),
  /** Content mode: this page's matching lines (context lines are only in `content`). */
  matches: z.array(searchMatchSchema).optional(),
  /** files_only mode and file search: this page's paths. */
  files: z.array(z.string()).optional(),
  /** Count mode: this page's files with their number of matching lines. */
  counts: z.array(z.object({ path: z.string(), count: z.number() })).optional(),
}));
export type SearchFilesDetails = z.infer<typeof searchFilesDetailsSchema>;
