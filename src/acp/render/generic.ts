import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { DISPLAY_LIMIT_LARGE, parseJsonResult, textContent, truncate } from "./text.js";
import type { Completion, ToolEnd, ToolStart } from "./types.js";

const nonZeroInteger = z.number().int().refine((code) => code !== 0);

/** Hermes' structured failure signals in a result (§7.4); words like "error" in plain text are not one. */
const FAILURE_SIGNAL = z.union([
  z.object({ success: z.literal(false) }),
  z.object({ ok: z.literal(false) }),
  z.object({ exit_code: nonZeroInteger }),
  z.object({ returncode: nonZeroInteger }),
  z.object({ error: z.string(), content: z.undefined().optional() }),
]);

/**
 * Whether a result reports failure through a structured signal: `success: false`, `ok: false`,
 * a non-zero integer `exit_code` / `returncode`, or an `error` field with no `content`. Text that
 * merely contains the word "error" is not a failure.
 */
export function structuredFailure(result: unknown): boolean {
  return FAILURE_SIGNAL.safeParse(result).success;
}

/**
 * Tools without a details type (MCP tools, unknown names). Start: the arguments as pretty JSON
 * (≤ 1200 chars), nothing for a call without arguments. Completion: the text, and failed on the
 * executor's verdict or a structured signal in the result: the text is all such a tool gives.
 */
export const genericRenderer = {
  start(event: ToolStart): ToolCallContent[] {
    const shown = event.args ? JSON.stringify(event.args, null, 2) : undefined;
    return shown === undefined || shown === "{}" ? [] : [textContent(truncate(shown, 1200))];
  },
  complete(event: ToolEnd): Completion {
    return {
      content: event.content ? [textContent(truncate(event.content, DISPLAY_LIMIT_LARGE))] : [],
      failed: event.isError || structuredFailure(parseJsonResult(event.content)),
    };
  },
};
