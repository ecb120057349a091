import type { ScriptStatus } from "./details.js";
import type { ScriptOutcome } from "./run-script.js";

/** What the model gets for a script: Hermes' result JSON, and the status it states. */
export interface ScriptReport {
  status: ScriptStatus;
  /** The `output` field: stdout, with stderr (on failure) or the timeout / interruption note appended. */
  output: string;
  /** The `error` field, when there is one. */
  error?: string;
  body: Record<string, unknown>;
}

export interface ReportInput {
  outcome: ScriptOutcome;
  toolCallsMade: number;
  durationSeconds: number;
  timeoutSeconds: number;
  /** The tools the script could import (named in the hint for a failed import). */
  available: readonly string[];
  /** A note on what the sandbox refused, when the stderr shows it. */
  sandboxHint?: string;
}

/**
 * Hermes' result shape (`code_execution_tool.py`): `status` (success | error | timeout |
 * interrupted), `output` (stdout), `tool_calls_made`, `duration_seconds`, `exit_code`, and on
 * failure `error` with stderr after a `--- stderr ---` line in the output; a timeout or a cancel is
 * stated in the output too (an empty result reads as "nothing happened"). A `hint` names the fix
 * for the common script mistakes Hermes recognises. Pure.
 */
export function scriptReport(input: ReportInput): ScriptReport {
  const { outcome } = input;
  const stdout = outcome.stdout.replace(/\s+$/, "");
  const stderr = outcome.stderr.replace(/\s+$/, "");
  let status: ScriptStatus = "success";
  let output = stdout;
  let error: string | undefined;
  if (outcome.spawnError) {
    status = "error";
    error = `Could not start python3: ${outcome.spawnError}`;
  } else if (outcome.interrupted) {
    status = "interrupted";
    output = `${stdout}${stdout ? "\n" : ""}[execution interrupted — the turn was cancelled and the script was killed]`;
  } else if (outcome.timedOut) {
    status = "timeout";
    error = `Script timed out after ${input.timeoutSeconds}s and was killed.`;
    output = stdout ? `${stdout}\n\n⏰ ${error}` : `⏰ ${error}`;
  } else if (outcome.exitCode !== 0) {
    status = "error";
    error = `Script exited with code ${outcome.exitCode}`;
    if (stderr) output = `${stdout}\n--- stderr ---\n${stderr}`;
  }
  const hint = status === "error" ? [failureHint(stderr, input.available), input.sandboxHint].filter(Boolean).join(" ") : "";
  const body: Record<string, unknown> = {
    status,
    output,
    tool_calls_made: input.toolCallsMade,
    duration_seconds: input.durationSeconds,
    exit_code: outcome.exitCode,
    ...(error ? { error } : {}),
    ...(hint ? { hint } : {}),
  };
  return { status, output, ...(error ? { error } : {}), body };
}

/** Hermes' recovery hints for the most common failures of scripts (first match wins). */
function failureHint(stderr: string, available: readonly string[]): string | undefined {
  const window = stderr.slice(-4000);
  const missing = /cannot import name '(\w+)' from 'hermes_tools'/.exec(window);
  if (missing) {
    return `'${missing[1]}' is not available inside execute_code. Importable here: ${[...available, "json_parse", "shell_quote", "retry"].join(", ")}. For anything else, call the tool directly.`;
  }
  const module = /ModuleNotFoundError: No module named '([\w.]+)'/.exec(window);
  if (module) {
    return `'${module[1]}' is not installed for this python3. Use the standard library inside execute_code, or run the code with terminal() and the project's own interpreter.`;
  }
  if (/TypeError: string indices must be integers|AttributeError: 'str' object has no attribute 'get'/.test(window)) {
    return "Tool functions return dicts (already parsed): do not json.loads() them or index them like strings, e.g. read_file(path)['content'].";
  }
  return undefined;
}
