import { argumentsProblem, type PreparedToolCall } from "../tools/prepared-call.js";
import type { ToolRegistry } from "../tools/registry.js";
import { typeDetails, type TypedToolOutcome } from "../tools/typed-call.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/types.js";
import { toolEndEvent, toolProgressEvent, toolStartEvent, type EmitAgentEvent } from "./events.js";
import { innerToolsPort } from "./inner-tools.js";
import { redactDetails, redactResult } from "./redact-result.js";

/** Decides whether a known tool may run now; returns the refusal text for the model, or undefined. */
export type ToolGate = (tool: AnyTool) => string | undefined;

export const CANCELLED_TOOL_RESULT = "Tool call cancelled by the user before it ran.";

/** What a finished call's result carried besides its text, typed by its tool, for the store. */
export function toolOutcome(prepared: PreparedToolCall, result: ToolResult): TypedToolOutcome {
  return { ...typeDetails(prepared.name, result.details), isError: result.isError === true };
}

/**
 * Runs one prepared tool call and reports it with a `tool_start` / `tool_end` pair. Unknown tools,
 * bad arguments and tool exceptions become error results for the model; never throws.
 * `produce`, when given, supplies the result instead of running the tool (a duplicate call, a call cut
 * off by the output cap); the call is still reported like any other. The call's ports gain
 * `innerTools` (see `innerToolsPort`): the session's tools behind the same gate and context.
 */
export async function runToolCall(
  prepared: PreparedToolCall,
  registry: ToolRegistry,
  turnContext: Omit<ToolContext, "callId">,
  emit: EmitAgentEvent,
  gate?: ToolGate,
  produce?: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const innerTools = innerToolsPort({ registry, context: () => turnContext, outer: { callId: prepared.callId, name: prepared.name }, ...(gate ? { gate } : {}) });
  const ctx: ToolContext = { ...turnContext, callId: prepared.callId, ports: { ...turnContext.ports, innerTools } };
  emit(toolStartEvent(prepared));
  ctx.reportProgress = (details) => emit(toolProgressEvent(prepared, redactDetails(details)));
  const result = redactResult(await (produce ?? execute)());
  emit(toolEndEvent(prepared, { content: result.content, isError: result.isError === true, details: result.details }));
  return result;

  async function execute(): Promise<ToolResult> {
    const tool = prepared.tool;
    if (!tool) {
      return { content: `Unknown tool '${prepared.name}'. Available tools: ${registry.names().join(", ")}`, isError: true };
    }
    const refusal = gate?.(tool);
    if (refusal) return { content: refusal, isError: true };
    const problem = argumentsProblem(prepared);
    if (problem) return { content: problem, isError: true };
    try {
      return await tool.execute(prepared.args, ctx);
    } catch (error) {
      if (ctx.signal.aborted) return { content: "Tool call cancelled by the user.", isError: true };
      return { content: `Error executing tool '${prepared.name}': ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}

export interface ToolBatchInput {
  tools: ToolRegistry;
  /** Context for every call; `callId` is filled in per call. */
  context: Omit<ToolContext, "callId">;
  emit: EmitAgentEvent;
  gate?: ToolGate;
  /** Ids of calls cut off by the output cap: reported with an error result, never run. */
  truncated?: ReadonlySet<string>;
  /**
   * The texts the model is to be sent for a group of results that ran together (in the group's
   * order), applied before the group is delivered: the result budget (see result-budget.ts). Must
   * not reject. The `tool_end` events have already carried the results as the tools returned them.
   */
  fitContents?: (group: readonly { prepared: PreparedToolCall; result: ToolResult }[]) => Promise<string[]>;
}

/**
 * Runs one assistant message's prepared tool calls and hands each result to `deliver`, in call
 * order, exactly once per call id. Consecutive read-only calls run concurrently; a mutating (or
 * unknown) call runs alone, in order. A call with the same `dedupKey` as an earlier one of the
 * message (same name, same arguments up to key order and spacing) is not run again: it gets the
 * earlier call's result. After a cancel (the context's signal) the remaining calls get a
 * "cancelled" result without running. Each group of calls that ran together is delivered once all
 * of it finished, after `fitContents` (when given) chose what the model is sent. Never throws.
 */
export async function runToolCalls(
  calls: readonly PreparedToolCall[],
  input: ToolBatchInput,
  deliver: (prepared: PreparedToolCall, result: ToolResult) => void,
): Promise<void> {
  const signal = input.context.signal;
  const firstRuns = new Map<string, Promise<ToolResult>>();
  const run = (prepared: PreparedToolCall): Promise<ToolResult> => {
    if (signal.aborted) return Promise.resolve({ content: CANCELLED_TOOL_RESULT, isError: true });
    const report = (produce?: () => Promise<ToolResult>): Promise<ToolResult> =>
      runToolCall(prepared, input.tools, input.context, input.emit, input.gate, produce);
    if (input.truncated?.has(prepared.callId)) return report(async () => truncatedResult(prepared));
    const key = prepared.dedupKey;
    if (key === undefined) return report();
    const earlier = firstRuns.get(key);
    if (earlier) return report(() => earlier);
    const first = report();
    firstRuns.set(key, first);
    return first;
  };
  for (const batch of batches(calls)) {
    const results = (await Promise.all(batch.map(run))).map((result) => result ?? { content: CANCELLED_TOOL_RESULT, isError: true });
    const contents = input.fitContents ? await input.fitContents(batch.map((prepared, index) => ({ prepared, result: results[index] as ToolResult }))) : undefined;
    batch.forEach((prepared, index) => {
      const result = results[index] as ToolResult;
      const content = contents?.[index];
      deliver(prepared, content === undefined || content === result.content ? result : { ...result, content });
    });
  }
}

/**
 * The calls of a message that finished with `length` whose arguments were cut off: not valid JSON, or
 * empty on the last call (only its name arrived).
 */
export function truncatedCalls(calls: readonly PreparedToolCall[]): Set<string> {
  const cut = new Set<string>();
  calls.forEach((prepared, index) => {
    const blank = prepared.call.function.arguments.trim() === "";
    if (blank ? index === calls.length - 1 : !prepared.json.ok) cut.add(prepared.callId);
  });
  return cut;
}

function truncatedResult(prepared: PreparedToolCall): ToolResult {
  const received = prepared.call.function.arguments.length;
  return {
    content:
      `Error: this call to '${prepared.name}' was cut off by the output length limit before its arguments were complete ` +
      `(${received} characters received), so it was not run. Call it again; if its arguments are large (a whole file), ` +
      "split the work into several smaller calls.",
    isError: true,
  };
}

/** Splits calls into runs of read-only calls and single mutating (or unknown) calls, keeping order. */
function batches(calls: readonly PreparedToolCall[]): PreparedToolCall[][] {
  const result: PreparedToolCall[][] = [];
  let readOnly: PreparedToolCall[] = [];
  for (const prepared of calls) {
    if (prepared.tool && !prepared.tool.mutating) {
      readOnly.push(prepared);
      continue;
    }
    if (readOnly.length) result.push(readOnly);
    readOnly = [];
    result.push([prepared]);
  }
  if (readOnly.length) result.push(readOnly);
  return result;
}
