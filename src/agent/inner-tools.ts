import { issuesText, validateArguments } from "../tools/prepared-call.js";
import type { InnerToolResult, InnerToolsPort, ToolPorts } from "../tools/ports.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import { redactResult } from "./redact-result.js";

export interface InnerToolsBinding {
  /** The session's tools. */
  registry: ToolRegistry;
  /** The turn's context, read afresh for every inner call (the sandbox follows the session mode). */
  context: () => Omit<ToolContext, "callId" | "signal">;
  /** The tool call that owns the port: its id (approvals are shown on it) and its tool's name. */
  outer: { callId: string; name: string };
  /** The session mode's gate (a refusal text, or undefined), the same the direct calls of the turn pass. */
  gate?: (tool: AnyTool) => string | undefined;
}

/**
 * The `innerTools` port of one tool call. Each inner call gets the turn's context with its own
 * call id (`<outer>:<n>`, n from 1) and the given signal, and goes through what a direct call goes
 * through: the gate, argument validation, then the tool itself with its approvals and sandbox.
 * Approval requests carry the outer call's id, so the editor shows them on the call it knows.
 * Inner calls get no editor terminal (their output goes to the caller, not the editor), no
 * progress reporting and no `innerTools` of their own (no recursion); the owning tool is refused.
 * Results are redacted like any tool result. Never rejects.
 */
export function innerToolsPort(binding: InnerToolsBinding): InnerToolsPort {
  let count = 0;
  const failure = (content: string): InnerToolResult => ({ content, isError: true });
  return {
    names: () => binding.registry.names(),
    async invoke(name, args, signal) {
      const tool = binding.registry.get(name);
      if (!tool) return failure(`Unknown tool '${name}'. Available tools: ${binding.registry.names().join(", ")}`);
      if (name === binding.outer.name) return failure(`'${name}' cannot be called from inside ${binding.outer.name}.`);
      const refusal = binding.gate?.(tool);
      if (refusal) return failure(refusal);
      const validation = validateArguments(tool, args);
      if (!validation.ok) return failure(`${issuesText(name, validation.issues)}. The tool was not run; call it again with corrected arguments.`);
      if (signal.aborted) return failure("Tool call cancelled before it ran.");
      count += 1;
      const context = binding.context();
      const ctx: ToolContext = { ...context, callId: `${binding.outer.callId}:${count}`, signal, ports: innerPorts(context.ports, binding.outer.callId) };
      try {
        const result = redactResult(await tool.execute(validation.args, ctx));
        return { content: result.content, isError: result.isError === true };
      } catch (error) {
        if (signal.aborted) return failure("Tool call cancelled.");
        return failure(`Error executing tool '${name}': ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** The outer call's ports for an inner call: approvals asked on the outer call; no editor terminal, no recursion. */
function innerPorts(ports: ToolPorts, outerCallId: string): ToolPorts {
  const { runInClientTerminal: _terminal, innerTools: _inner, approveCommand, approveEdit, ...rest } = ports;
  return {
    ...rest,
    ...(approveCommand ? { approveCommand: (request) => approveCommand({ ...request, callId: outerCallId }) } : {}),
    ...(approveEdit ? { approveEdit: (request) => approveEdit({ ...request, callId: outerCallId }) } : {}),
  };
}
