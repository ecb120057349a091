import { redactRegisteredSecrets } from "../config/redact.js";
import type { ToolCall } from "../llm/types.js";
import { describeCall, parseToolArgs, type ToolRegistry } from "../tools/registry.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/types.js";
import type { EmitAgentEvent } from "./events.js";

/** Tool output never carries the secrets the agent holds (to the model or the editor). */
function redactResult(result: ToolResult): ToolResult {
  return { ...result, content: redactRegisteredSecrets(result.content), details: redactDetails(result.details) };
}

function redactDetails(details: unknown): unknown {
  return details && typeof details === "object" && typeof (details as { output?: unknown }).output === "string"
    ? { ...details, output: redactRegisteredSecrets((details as { output: string }).output) }
    : details;
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
 */
/** Decides whether a known tool may run now; returns the refusal text for the model, or undefined. */
export type ToolGate = (tool: AnyTool) => string | undefined;

export async function runToolCall(
  call: ToolCall,
  registry: ToolRegistry,
  turnContext: Omit<ToolContext, "callId">,
  emit: EmitAgentEvent,
  gate?: ToolGate,
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
  const result = redactResult(await execute());
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
    const parsed = parseToolArgs(tool, call.function.arguments);
    if (!parsed.ok) return { content: parsed.error, isError: true };
    try {
      return await tool.execute(parsed.args, ctx);
    } catch (error) {
      if (ctx.signal.aborted) return { content: "Tool call cancelled by the user.", isError: true };
      return { content: `Error executing tool '${name}': ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}
