import { z } from "zod";

/** One tool call a script made, as the editor lists it (`read_file src/a.ts`). */
export const innerCallSchema = z.lazy(() => z.object({
  tool: z.string(),
  /** The tool name and its main argument on one line, cut short. */
  summary: z.string(),
  /** `running` only in progress reports; a finished call is `ok` or `error` (refused, failed or cancelled). */
  status: z.enum(["running", "ok", "error"]),
}));

export type InnerCall = z.infer<typeof innerCallSchema>;

/** How a script ended, in Hermes' words (the `status` of its result). */
export const scriptStatusSchema = z.lazy(() => z.enum(["success", "error", "timeout", "interrupted"]));

export type ScriptStatus = z.infer<typeof scriptStatusSchema>;

/**
 * What the editor gets for every execute_code call (stored with the result and decoded with this
 * schema when a transcript is replayed). The script itself is the call's `code` argument.
 */
export const executeCodeDetailsSchema = z.lazy(() => z.object({
  status: scriptStatusSchema,
  /** The interpreter's exit code; -1 when it never ran; 124 on timeout; 130 when cancelled. */
  exitCode: z.number(),
  /** The script's stdout as the model got it (ANSI stripped, capped), stderr appended on failure. */
  output: z.string(),
  /** The tool calls the script made, in order (at most `MAX_LISTED_CALLS`). */
  calls: z.array(innerCallSchema),
  /** Tool calls the script made (refused ones beyond the allowed list or the limit not counted). */
  toolCallsMade: z.number(),
  /** Why the script did not run or did not finish, as the model was told. */
  error: z.string().optional(),
  /** How the script was confined (the terminal's labels). */
  sandbox: z.enum(["workspace-write", "read-only", "escalated", "unavailable", "off"]).optional(),
  /** Set when the script ran after the user approved it (a dangerous pattern, or no sandbox). */
  approval: z.object({ patternKey: z.string(), description: z.string(), via: z.enum(["user", "allowlist"]) }).optional(),
}));

export type ExecuteCodeDetails = z.infer<typeof executeCodeDetailsSchema>;

/** Calls listed in details and progress; a script makes at most `code_execution.max_tool_calls` (50) anyway. */
export const MAX_LISTED_CALLS = 100;

/**
 * What `ctx.reportProgress` gets while a script runs: the tool calls it has made so far, the last
 * one possibly still running (at most a few reports per second). Never stored.
 */
export interface ExecuteCodeProgress {
  running: true;
  calls: InnerCall[];
}
