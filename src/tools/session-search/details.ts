import { z } from "zod";

/** The modes, inferred from the arguments. */
export const sessionSearchModeSchema = z.lazy(() => z.enum(["discover", "scroll", "read", "browse"]));
export type SessionSearchMode = z.infer<typeof sessionSearchModeSchema>;

/** One row of the editor's result list. */
export const sessionSearchDetailRowSchema = z.lazy(() => z.object({
  sessionId: z.string(),
  title: z.string().nullable(),
  /** ISO 8601 time of the session's last activity. */
  when: z.string(),
  source: z.string().optional(),
  messageCount: z.number().optional(),
  /** The highlighted snippet (`>>>match<<<`), the preview, or the anchor message's text. */
  summary: z.string(),
}));
export type SessionSearchDetailRow = z.infer<typeof sessionSearchDetailRowSchema>;

/** `details` of every successful `session_search` result. */
export const sessionSearchListingSchema = z.lazy(() => z.object({
  mode: sessionSearchModeSchema,
  query: z.string().optional(),
  results: z.array(sessionSearchDetailRowSchema),
}));
export type SessionSearchDetails = z.infer<typeof sessionSearchListingSchema>;

/** `details` of a failed `session_search` call: what the model was told. */
export const sessionSearchErrorSchema = z.lazy(() => z.object({ error: z.string() }));
export type SessionSearchErrorDetails = z.infer<typeof sessionSearchErrorSchema>;

/** Every `session_search` result's details (the union `ToolDetailsMap` names). */
export const sessionSearchDetailsSchema = z.lazy(() => z.union([sessionSearchListingSchema, sessionSearchErrorSchema]));
export type SessionSearchResultDetails = z.infer<typeof sessionSearchDetailsSchema>;
