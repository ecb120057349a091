import { isRecord, parseJsonResult, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { Completion, ToolEnd, ToolRenderer, ToolStart } from "./types.js";

/**
 * Whether a result reports failure through a structured signal: `success: false`, `ok: false`,
 * a non-zero integer `exit_code` / `returncode`, or an `error` field with no `content`. Text that
 * merely contains the word "error" is not a failure.
 */
export function structuredFailure(result: unknown): boolean {
  if (!isRecord(result)) return false;
  if (result.success === false || result.ok === false) return true;
  for (const key of ["exit_code", "returncode"]) {
    const code = result[key];
    if (typeof code === "number" && Number.isInteger(code) && code !== 0) return true;
  }
  return typeof result.error === "string" && result.content === undefined;
}

/** Arguments as pretty JSON (≤ 1200 chars); nothing for a call without arguments. */
function argsContent(event: ToolStart) {
  const args = event.args;
  if (!args || (isRecord(args) && Object.keys(args).length === 0)) return [];
  return [textContent(truncate(JSON.stringify(args, null, 2), 1200))];
}

function completeGeneric(event: ToolEnd): Completion {
  const parsed = parseJsonResult(event.content);
  return {
    content: event.content ? [textContent(truncate(event.content, DISPLAY_LIMIT_LARGE))] : [],
    failed: event.isError || structuredFailure(parsed),
  };
}

export const genericRenderer: ToolRenderer = { start: argsContent, complete: completeGeneric };
