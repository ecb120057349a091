import { z } from "zod";
import type { ToolSchema } from "../llm/types.js";
import type { AnyTool, DescribeContext, ToolDescription } from "./types.js";

/** The tools of one session, by name. Order is the order the model sees them in. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();

  constructor(tools: readonly AnyTool[] = []) {
    for (const tool of tools) this.add(tool);
  }

  add(tool: AnyTool): void {
    if (this.tools.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  list(): AnyTool[] {
    return [...this.tools.values()];
  }

  /** JSON schemas for the model, one per tool: the tool's own `jsonSchema`, else derived from the zod params. */
  schemas(): ToolSchema[] {
    return this.list().map((tool) => ({ name: tool.name, description: tool.description, parameters: parametersOf(tool) }));
  }
}

/** Derived schemas per tool object: tools are immutable, and the loop asks on every model call. */
const derivedSchemas = new WeakMap<AnyTool, Record<string, unknown>>();

function parametersOf(tool: AnyTool): Record<string, unknown> {
  if (tool.jsonSchema) return tool.jsonSchema;
  let schema = derivedSchemas.get(tool);
  if (!schema) {
    schema = toParametersSchema(tool.params);
    derivedSchemas.set(tool, schema);
  }
  return schema;
}

function toParametersSchema(params: z.ZodType): Record<string, unknown> {
  const schema = z.toJSONSchema(params, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * Parses raw model arguments against the tool's schema. Returns a message naming what was wrong
 * instead of throwing, so the loop can hand it back to the model.
 */
export function parseToolArgs(
  tool: AnyTool,
  rawArguments: string,
): { ok: true; args: unknown } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
  } catch (error) {
    return { ok: false, error: `Invalid JSON in arguments for ${tool.name}: ${(error as Error).message}` };
  }
  const parsed = tool.params.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.length ? issue.path.join(".") : "(arguments)"}: ${issue.message}`)
      .join("; ");
    return { ok: false, error: `Invalid arguments for ${tool.name}: ${issues}` };
  }
  return { ok: true, args: parsed.data };
}

/** The tool's own description of a call, or a plain fallback when args are unusable. Never throws. */
export function describeCall(tool: AnyTool | undefined, name: string, args: unknown, ctx: DescribeContext): ToolDescription {
  if (tool) {
    const parsed = tool.params.safeParse(args);
    if (parsed.success) {
      try {
        return tool.describe(parsed.data, ctx);
      } catch {
        // fall through to the plain description
      }
    }
  }
  return { title: name, locations: [] };
}
