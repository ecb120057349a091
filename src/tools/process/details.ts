import { z } from "zod";

export const PROCESS_ACTIONS = ["list", "poll", "log", "wait", "kill", "write", "submit", "close"] as const;
export type ProcessAction = (typeof PROCESS_ACTIONS)[number];

export const processStatusSchema = z.lazy(() => z.enum(["running", "exited", "killed"]));
export type ProcessStatus = z.infer<typeof processStatusSchema>;

/** One background process, as `list` and the other actions report it. */
export const processInfoSchema = z.lazy(() => z.object({
  session_id: z.string(),
  pid: z.number(),
  command: z.string(),
  cwd: z.string(),
  status: processStatusSchema,
  /** Exit code once finished; 128 + signal number when a signal ended it; null while running. */
  exit_code: z.number().nullable(),
  /** Signal that ended it, if any. */
  signal: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  /** Seconds since start (until the end once finished). */
  runtime_seconds: z.number(),
  /** Chars of output written so far (the buffer keeps only the last 200,000). */
  output_chars: z.number(),
}));
export type ProcessInfo = z.infer<typeof processInfoSchema>;

const output = { process: processInfoSchema, output: z.string(), lostChars: z.number() };

/**
 * What the editor gets, per action. Every shape carries `action`; failures are
 * `{ action, error, process? }` with `isError` (listed first: they are told apart by `error`).
 */
export const processDetailsSchema = z.lazy(() => z.union([
  z.object({ action: z.enum(PROCESS_ACTIONS), error: z.string(), process: processInfoSchema.optional() }),
  z.object({ action: z.literal("list"), processes: z.array(processInfoSchema) }),
  z.object({ action: z.enum(["poll", "wait"]), ...output, timedOut: z.boolean().optional(), interrupted: z.boolean().optional() }),
  z.object({ action: z.literal("log"), ...output, offset: z.number(), limit: z.number(), totalLines: z.number() }),
  z.object({ action: z.literal("kill"), process: processInfoSchema, alreadyEnded: z.boolean() }),
  z.object({ action: z.enum(["write", "submit", "close"]), process: processInfoSchema, chars: z.number().optional() }),
]));
export type ProcessDetails = z.infer<typeof processDetailsSchema>;
