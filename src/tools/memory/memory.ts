import { join } from "node:path";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import { MemoryFiles, type MemoryOperation, type MemoryResult, type MemoryTarget } from "./memory-store.js";

/** One change of `operations`: the fields of a single change (described there). */
const operation = z.lazy(() => z.object({
  action: z.enum(["add", "replace", "remove"]),
  content: z.string().optional(),
  old_text: z.string().optional(),
}));

const memoryParams = z.lazy(() => z.object({
  action: z.enum(["add", "replace", "remove"]).optional().describe("A single change; omit when using 'operations'."),
  target: z.enum(["memory", "user"]).default("memory").describe("'memory' for your notes, 'user' for the user profile."),
  content: z.string().optional().describe("add / replace: the entry."),
  old_text: z.string().optional().describe("replace / remove: a short unique substring of the entry to change."),
  operations: z.array(operation).optional().describe("Several changes {action, content?, old_text?} applied together against the final limit."),
}));

export type MemoryArgs = z.infer<typeof memoryParams>;

const DESCRIPTION = [
  "Save durable facts to persistent memory: it survives across sessions (shared with Hermes' other programs) and is in",
  "every future system prompt, so keep entries compact. Targets: 'user' = who the user is; 'memory' = your notes.",
  "Make all changes in one call with 'operations': the character limit is checked on the final result only, so one call",
  "can remove or shorten stale entries and add new ones. The result reports usage.",
  "Save preferences, corrections and personal details the user states, and stable facts about their environment or",
  "conventions; skip trivial or easily re-discovered facts, task progress and temporary state. Procedures belong in skills.",
].join(" ");

/** After this many failed memory changes in one turn, the model is told to stop retrying (Hermes' cap). */
export const MAX_FAILURES_PER_TURN = 3;
/** Failed changes per turn, keyed by the turn's signal (a new turn starts at zero). */
const failuresThisTurn = new WeakMap<AbortSignal, number>();

/** The memory files of the session's HERMES_HOME with config.yaml's limits. */
export function memoryFilesFor(ctx: Pick<ToolContext, "hermesHome" | "config">): MemoryFiles {
  const limits = ctx.config.memory;
  return new MemoryFiles(join(ctx.hermesHome, "memories"), { memory: limits.memory_char_limit, user: limits.user_char_limit });
}

function describeMemory(args: MemoryArgs): ToolDescription {
  const count = args.operations?.length;
  const what = count ? `${count} change${count === 1 ? "" : "s"}` : (args.action ?? "change");
  return { title: `memory: ${what} (${args.target === "user" ? "user profile" : "notes"})`, locations: [] };
}

/** The tool's answer in Hermes' result shape (`success`, `usage`, `current_entries`…). */
function resultJson(result: MemoryResult): string {
  const usage = `${result.used.toLocaleString("en-US")}/${result.limit.toLocaleString("en-US")}`;
  if (result.ok) {
    const percent = Math.min(100, Math.floor((result.used / result.limit) * 100));
    return JSON.stringify({
      success: true,
      done: true,
      target: result.target,
      usage: `${percent}% — ${usage} chars`,
      entry_count: result.entries,
      message: result.message,
      note: "Write saved. This update is complete — do not repeat it.",
    });
  }
  return JSON.stringify({
    success: false,
    error: result.error,
    usage,
    ...(result.currentEntries ? { current_entries: result.currentEntries } : {}),
    ...(result.matches ? { matches: result.matches } : {}),
  });
}

/**
 * `memory`: add, replace or remove entries of MEMORY.md / USER.md (see memory-store.ts), one
 * change or a batch. Never throws for anything the model can fix; a failed change is an error
 * result listing the current entries. Disabled targets (`memory.memory_enabled` /
 * `memory.user_profile_enabled` false) are refused.
 */
export const memoryTool = defineTool({
  name: "memory",
  description: DESCRIPTION,
  kind: "other",
  mutating: true,
  params: memoryParams,
  describe: describeMemory,
  async execute(args: MemoryArgs, ctx: ToolContext): Promise<ToolResult> {
    const target: MemoryTarget = args.target;
    const enabled = target === "user" ? ctx.config.memory.user_profile_enabled : ctx.config.memory.memory_enabled;
    if (!enabled) return { content: JSON.stringify({ success: false, error: `The ${target === "user" ? "user profile" : "memory"} is turned off in config.yaml.` }), isError: true };
    const operations: MemoryOperation[] = args.operations?.length
      ? args.operations
      : args.action
        ? [{ action: args.action, ...(args.content !== undefined ? { content: args.content } : {}), ...(args.old_text !== undefined ? { old_text: args.old_text } : {}) }]
        : [];
    let result: MemoryResult;
    try {
      result = await memoryFilesFor(ctx).apply(target, operations);
    } catch (error) {
      return { content: JSON.stringify({ success: false, error: (error as Error).message }), isError: true };
    }
    if (result.ok) {
      failuresThisTurn.delete(ctx.signal);
      return { content: resultJson(result) };
    }
    const failures = (failuresThisTurn.get(ctx.signal) ?? 0) + 1;
    failuresThisTurn.set(ctx.signal, failures);
    if (failures > MAX_FAILURES_PER_TURN) {
      // A memory side effect must never eat the turn: stop the consolidation loop, answer the user.
      const error = `Memory changes failed ${failures} times this turn. Stop retrying memory calls: leave memory as it is and continue with your reply; the fact can be saved in a later turn.`;
      return { content: JSON.stringify({ success: false, done: true, error }), isError: true };
    }
    return { content: resultJson(result), isError: true };
  },
});
