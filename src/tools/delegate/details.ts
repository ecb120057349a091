import { z } from "zod";

/** One child as the editor shows it (a summary is the child's self-report). */
export const delegateResultRowSchema = z.lazy(() => z.object({
  taskIndex: z.number(),
  goal: z.string(),
  status: z.enum(["completed", "failed", "interrupted", "error"]),
  summary: z.string().nullable(),
  error: z.string().optional(),
  role: z.enum(["leaf", "orchestrator"]),
  durationSeconds: z.number(),
  apiCalls: z.number(),
  model: z.string().optional(),
  agent: z.string().optional(),
  filesChanged: z.array(z.string()),
  /** Tool names in call order. */
  tools: z.array(z.string()),
  sessionId: z.string().optional(),
}));
export type DelegateResultRow = z.infer<typeof delegateResultRowSchema>;

/** The children of a foreground call, in task order. */
export const delegateRunDetailsSchema = z.lazy(() => z.object({
  mode: z.literal("run"),
  results: z.array(delegateResultRowSchema),
  totalDurationSeconds: z.number(),
}));

const backgroundFields = {
  delegationId: z.string(),
  goal: z.string(),
  status: z.enum(["running", "completed", "failed", "interrupted", "error"]),
  result: delegateResultRowSchema.optional(),
};

/** A background dispatch. */
export const delegateDispatchedDetailsSchema = z.lazy(() => z.object({ mode: z.literal("dispatched"), ...backgroundFields }));

/** A status query of a background delegation. */
export const delegateStatusDetailsSchema = z.lazy(() => z.object({ mode: z.literal("status"), ...backgroundFields }));

/** A refused call: what the model was told. */
export const delegateErrorSchema = z.lazy(() => z.object({ error: z.string() }));

/** Every `delegate_task` result's details (the union `ToolDetailsMap` names). */
export const delegateDetailsSchema = z.lazy(() => z.union([delegateRunDetailsSchema, delegateDispatchedDetailsSchema, delegateStatusDetailsSchema, delegateErrorSchema]));
export type DelegateDetails = z.infer<typeof delegateDetailsSchema>;

/**
 * What `ctx.reportProgress` gets while children run (a few times a second at most): the latest
 * lines of what they do, each `[child N] <tool title>`, oldest first. Never stored.
 */
export interface DelegateProgress {
  lines: string[];
  /** Lines dropped from the front to keep `lines` short. */
  dropped: number;
}
