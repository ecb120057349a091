import { planModeRefusal } from "./edit-policy.js";

/** Tools that run commands; in plan mode they run inside a read-only sandbox (execute_code's inner tool calls meet the plan-mode gate themselves). */
const COMMAND_TOOLS = new Set(["terminal", "process", "execute_code"]);

/**
 * The refusal a tool gets in plan mode, or undefined when it may run. With a sandbox configured
 * (`sandbox.mode` not `off`), commands may run: the terminal confines them read-only and refuses
 * them where no sandbox exists. Everything else follows `planModeRefusal` (an allow-list).
 */
export function planModeGate(tool: { name: string; kind: string }, options: { sandboxed: boolean }): string | undefined {
  if (options.sandboxed && COMMAND_TOOLS.has(tool.name)) return undefined;
  return planModeRefusal(tool);
}
