import { z } from "zod";

export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** One item of a session's todo list, as the store keeps it and every result reports it. */
export const todoItemSchema = z.lazy(() => z.object({ id: z.string(), content: z.string(), status: z.enum(TODO_STATUSES) }));
export type TodoItem = z.infer<typeof todoItemSchema>;

/** Counts per status, as in Hermes' result JSON. */
export const todoSummarySchema = z.lazy(() => z.object({
  total: z.number(),
  pending: z.number(),
  in_progress: z.number(),
  completed: z.number(),
  cancelled: z.number(),
}));
export type TodoSummary = z.infer<typeof todoSummarySchema>;

/**
 * `details` of every todo result, and exactly the JSON the model gets as `content`: the whole list
 * after the call and its summary. The adapter shows `todos` as an ACP plan.
 */
export const todoDetailsSchema = z.lazy(() => z.object({ todos: z.array(todoItemSchema), summary: todoSummarySchema }));
export type TodoDetails = z.infer<typeof todoDetailsSchema>;
