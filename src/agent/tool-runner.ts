import { redactRegisteredSecrets } from "../config/redact.js";
import type { ToolCall } from "../llm/types.js";
import { describeCall, parseToolArgs, type ToolRegistry } from "../tools/registry.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/types.js";
import type { EmitAgentEvent } from "./events.js";

/** Decides whether a known tool may run now; returns the refusal text for the model, or undefined. */
export type ToolGate = (tool: AnyTool) => string | undefined;

export const CANCELLED_TOOL_RESULT = "Tool call cancelled by the user before it ran.";

/** Tool output never carries the secrets the agent holds (to the model or the editor). */
function redactResult(result: ToolResult): ToolResult {
  return { ...result, content: redactRegisteredSecrets(result.content), details: redactDetails(result.details) };
}

/** Every string inside `details` (diffs, file text, output) with the agent's secrets masked. */
function redactDetails(details: unknown, depth = 0): unknown {
  if (typeof details === "string") return redactRegisteredSecrets(details);
  if (!details || typeof details !== "object" || depth > 8) return details;
  if (Array.isArray(details)) return details.map((item) => redactDetails(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) copy[key] = redactDetails(value, depth + 1);
  return copy;
}

/** Arguments as the editor should see them: parsed JSON, or `{ raw }` when unparseable. */
function displayArgs(rawArguments: string): unknown {
  try {
    const value: unknown = JSON.parse(rawArguments || "{}");
    return value;
  } catch {
    return { raw: rawArguments };
  }
}

/**
 * Runs one tool call and reports it with a `tool_start` / `tool_end` pair. Unknown tools,
 * bad arguments and tool exceptions become error results for the model; never throws.
 * `produce`, when given, supplies the result instead of running the tool (a duplicate call, a call cut
 * off by the output cap); the call is still reported like any other.
 */
export async function runToolCall(
  call: ToolCall,
  registry: ToolRegistry,
  turnContext: Omit<ToolContext, "callId">,
  emit: EmitAgentEvent,
  gate?: ToolGate,
  produce?: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const ctx: ToolContext = { ...turnContext, callId: call.id };
  const name = call.function.name;
  const tool = registry.get(name);
  const args = displayArgs(call.function.arguments);
  const description = describeCall(tool, name, args, { cwd: ctx.cwd });
  emit({
    type: "tool_start",
    callId: call.id,
    name,
    args,
    title: description.title,
    kind: tool?.kind ?? "other",
    locations: description.locations,
  });
  ctx.reportProgress = (details) => emit({ type: "tool_progress", callId: call.id, name, args, details: redactDetails(details) });
  const result = redactResult(await (produce ?? execute)());
  emit({
    type: "tool_end",
    callId: call.id,
    name,
    args,
    content: result.content,
    details: result.details,
    isError: result.isError === true,
  });
  return result;

  async function execute(): Promise<ToolResult> {
    if (!tool) {
      return { content: `Unknown tool '${name}'. Available tools: ${registry.names().join(", ")}`, isError: true };
    }
    const refusal = gate?.(tool);
    if (refusal) return { content: refusal, isError: true };
    const invalidJson = jsonError(call.function.arguments);
    if (invalidJson) return { content: invalidJsonText(name, call.function.arguments, invalidJson), isError: true };
    const parsed = parseToolArgs(tool, call.function.arguments);
    if (!parsed.ok) return { content: `${parsed.error}. The tool was not run; call it again with corrected arguments.`, isError: true };
    try {
      return await tool.execute(parsed.args, ctx);
    } catch (error) {
      if (ctx.signal.aborted) return { content: "Tool call cancelled by the user.", isError: true };
      return { content: `Error executing tool '${name}': ${error instanceof Error ? error.message : String(error)}`, isError: true };
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
}

/**
 * Runs one assistant message's tool calls and hands each result to `deliver`, in call order, exactly once
 * per call id. Consecutive read-only calls run concurrently; a mutating (or unknown) call runs alone, in
 * order. A call identical to an earlier one of the message (same name, same arguments up to key order and
 * spacing) is not run again: it gets the earlier call's result. After a cancel (the context's signal) the
 * remaining calls get a "cancelled" result without running. Never throws.
 */
export async function runToolCalls(
  calls: readonly ToolCall[],
  input: ToolBatchInput,
  deliver: (call: ToolCall, result: ToolResult) => void,
): Promise<void> {
  const signal = input.context.signal;
  const firstRuns = new Map<string, Promise<ToolResult>>();
  const run = (call: ToolCall): Promise<ToolResult> => {
    if (signal.aborted) return Promise.resolve({ content: CANCELLED_TOOL_RESULT, isError: true });
    const report = (produce?: () => Promise<ToolResult>): Promise<ToolResult> =>
      runToolCall(call, input.tools, input.context, input.emit, input.gate, produce);
    if (input.truncated?.has(call.id)) return report(async () => truncatedResult(call));
    const key = callKey(call);
    const earlier = firstRuns.get(key);
    if (earlier) return report(() => earlier);
    const first = report();
    firstRuns.set(key, first);
    return first;
  };
  for (const batch of batches(calls, input.tools)) {
    const results = await Promise.all(batch.map(run));
    batch.forEach((call, index) => deliver(call, results[index] ?? { content: CANCELLED_TOOL_RESULT, isError: true }));
  }
}

/**
 * The calls of a message that finished with `length` whose arguments were cut off: not valid JSON, or
 * empty on the last call (only its name arrived).
 */
export function truncatedCalls(calls: readonly ToolCall[]): Set<string> {
  const cut = new Set<string>();
  calls.forEach((call, index) => {
    const raw = call.function.arguments.trim();
    if (raw === "" ? index === calls.length - 1 : jsonError(raw) !== undefined) cut.add(call.id);
  });
  return cut;
}

function truncatedResult(call: ToolCall): ToolResult {
  const received = call.function.arguments.length;
  return {
    content:
      `Error: this call to '${call.function.name}' was cut off by the output length limit before its arguments were complete ` +
      `(${received} characters received), so it was not run. Call it again; if its arguments are large (a whole file), ` +
      "split the work into several smaller calls.",
    isError: true,
  };
}

/** Splits calls into runs of read-only calls and single mutating calls, keeping order. */
function batches(calls: readonly ToolCall[], tools: ToolRegistry): ToolCall[][] {
  const result: ToolCall[][] = [];
  let readOnly: ToolCall[] = [];
  for (const call of calls) {
    const tool = tools.get(call.function.name);
    if (tool && !tool.mutating) {
      readOnly.push(call);
      continue;
    }
    if (readOnly.length) result.push(readOnly);
    readOnly = [];
    result.push([call]);
  }
  if (readOnly.length) result.push(readOnly);
  return result;
}

/** Name plus canonical arguments (keys sorted, no spacing), or the raw text when it is not JSON. */
function callKey(call: ToolCall): string {
  const raw = call.function.arguments.trim() || "{}";
  try {
    return `${call.function.name}\u0000${canonicalJson(JSON.parse(raw))}`;
  } catch {
    return `${call.function.name}\u0000${raw}`;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The parser's complaint about `raw`, or undefined when it is valid JSON (empty counts as `{}`). */
function jsonError(raw: string): string | undefined {
  if (raw.trim() === "") return undefined;
  try {
    JSON.parse(raw);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const MAX_ECHOED_ARGUMENTS = 300;

function invalidJsonText(name: string, raw: string, problem: string): string {
  const shown = raw.length > MAX_ECHOED_ARGUMENTS ? `${raw.slice(0, MAX_ECHOED_ARGUMENTS)}… (${raw.length} characters)` : raw;
  return (
    `Invalid JSON in arguments for ${name}: ${problem}. You sent: ${shown}\n` +
    "The tool was not run. Call it again with the arguments as one valid JSON object (use {} for no arguments)."
  );
}
