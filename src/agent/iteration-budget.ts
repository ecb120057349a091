import type { ToolCall } from "../llm/types.js";

/**
 * Hermes' iteration refund (`conversation_loop.py`): a tool round whose calls are all
 * `execute_code` (programmatic tool calling: many tool calls in one round trip) gives its
 * iteration back, so it does not count toward `agent.max_turns`.
 */
const REFUNDED_TOOLS: ReadonlySet<string> = new Set(["execute_code"]);

/** True when every call of the round is to a refunded tool (and there is at least one). Pure. */
export function refundsIteration(calls: readonly ToolCall[]): boolean {
  return calls.length > 0 && calls.every((call) => REFUNDED_TOOLS.has(call.function.name));
}

/**
 * Model calls with tools a turn may make however many rounds were refunded: twice `maxTurns`, so a
 * model that only ever calls execute_code still ends (Hermes caps it with its per-turn call count).
 */
export function iterationCeiling(maxTurns: number): number {
  return maxTurns * 2;
}
