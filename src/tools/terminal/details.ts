import { z } from "zod";

/**
 * What the editor gets for every terminal call (also stored with the result, and decoded with this
 * schema when a transcript is replayed).
 */
export const terminalDetailsSchema = z.lazy(() => z.object({
  command: z.string(),
  /** Directory the command ran in (absolute). */
  cwd: z.string(),
  /** Exit code; -1 when it never ran; 124 on timeout; 130 when cancelled. */
  exitCode: z.number(),
  /** Output as the model sees it (ANSI stripped, truncated). */
  output: z.string(),
  timedOut: z.boolean().optional(),
  interrupted: z.boolean().optional(),
  /** Why the command did not run or failed to finish, as the model was told (refusals, bad workdirs…). */
  error: z.string().optional(),
  /** Set for `background: true`. */
  background: z.object({ id: z.string(), pid: z.number() }).optional(),
  /** Set when the guard refused the command. */
  refused: z.object({ reason: z.enum(["hardline", "denied", "cancelled"]), patternKey: z.string() }).optional(),
  /** Set when a dangerous command ran after approval. */
  approval: z.object({ patternKey: z.string(), description: z.string(), via: z.enum(["user", "allowlist"]) }).optional(),
  /** Set when the command ran in the editor's terminal (ACP `terminal/create`); the editor shows it. */
  terminalId: z.string().optional(),
  /**
   * How the command was confined: the sandbox's mode, `escalated` (the user allowed it outside
   * the sandbox), `unavailable` (no sandbox on this machine), `off` (sandbox.mode: off).
   */
  sandbox: z.enum(["workspace-write", "read-only", "escalated", "unavailable", "off"]).optional(),
}));

export type TerminalDetails = z.infer<typeof terminalDetailsSchema>;

/**
 * What `ctx.reportProgress` gets while a foreground command runs: the last 4,000 chars of the
 * output so far (local bash, at most a few reports per second), or the editor's terminal once it
 * exists (reported once). Never stored.
 */
export interface TerminalProgress {
  command: string;
  cwd: string;
  running: true;
  output?: string;
  terminalId?: string;
}
