import { z } from "zod";
import type { HermesConfig } from "../../config/schema.js";

/** Hermes' defaults (`code_execution_tool.py`): 5 minutes, 50 tool calls per script, 10 KB of stderr. */
export const DEFAULT_TIMEOUT_SECONDS = 300;
export const DEFAULT_MAX_TOOL_CALLS = 50;
export const STDERR_CAP = 10_000;

/** What one script may use. */
export interface ScriptLimits {
  timeoutSeconds: number;
  maxToolCalls: number;
  /** stdout cap in chars: the terminal's (`terminal.output_cap`, 50,000), first 40 % and last 60 % kept. */
  stdoutCap: number;
  stderrCap: number;
}

/** Hermes' `code_execution:` keys; a bad value falls back to its default (the section is not in the shared schema). */
const sectionSchema = z.lazy(() => z.object({
  timeout: z.number().positive().catch(DEFAULT_TIMEOUT_SECONDS).default(DEFAULT_TIMEOUT_SECONDS),
  max_tool_calls: z.number().int().min(1).catch(DEFAULT_MAX_TOOL_CALLS).default(DEFAULT_MAX_TOOL_CALLS),
}));

/** The limits from config.yaml (`code_execution.timeout`, `code_execution.max_tool_calls`, `terminal.output_cap`). Never throws. */
export function scriptLimits(config: HermesConfig): ScriptLimits {
  const raw = (config as { code_execution?: unknown }).code_execution;
  const parsed = sectionSchema.safeParse(raw && typeof raw === "object" ? raw : {});
  const section = parsed.success ? parsed.data : { timeout: DEFAULT_TIMEOUT_SECONDS, max_tool_calls: DEFAULT_MAX_TOOL_CALLS };
  return { timeoutSeconds: section.timeout, maxToolCalls: section.max_tool_calls, stdoutCap: config.terminal.output_cap, stderrCap: STDERR_CAP };
}
