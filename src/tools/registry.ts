import { z } from "zod";
import type { ToolSchema } from "../llm/types.js";
import { describeArguments, issuesText, parseArguments, validateArguments } from "./prepared-call.js";
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

  /**
   * Replaces the tools `replaceable` selects with `tools` (in that order, first), keeping the
   * others (MCP tools) after them. For a toolset re-resolved between turns; never during one.
   */
  replace(tools: readonly AnyTool[], replaceable: (tool: AnyTool) => boolean): void {
    const kept = [...this.tools.values()].filter((tool) => !replaceable(tool));
    this.tools.clear();
    for (const tool of [...tools, ...kept.filter((tool) => !tools.some((added) => added.name === tool.name))]) this.tools.set(tool.name, tool);
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

/** Derived schemas per zod `params` object (schemas are immutable; the loop asks on every model call). */
const derivedSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

function parametersOf(tool: AnyTool): Record<string, unknown> {
  if (tool.jsonSchema) return tool.jsonSchema;
  let schema = derivedSchemas.get(tool.params);
  if (!schema) {
    schema = deriveParameters(tool.params);
    derivedSchemas.set(tool.params, schema);
  }
  return schema;
}

/**
 * Gives `tool`'s params their JSON schema without deriving it (deriving all of hermes-acp's takes
 * milliseconds of a first session); a tool given other params later derives theirs. Contract:
 * `schema` is what `deriveParameters(tool.params)` answers, key order included; toolsets.ts
 * passes the built-in tools' from `tool-parameters.gen.ts`, which a test keeps equal to it.
 */
export function primeParameters(tool: AnyTool, schema: Record<string, unknown>): void {
  derivedSchemas.set(tool.params, schema);
}

/** The JSON schema the model is sent for zod `params`. */
export function deriveParameters(params: z.ZodType): Record<string, unknown> {
  const schema = z.toJSONSchema(params, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return withoutNoOpKeywords(schema) as Record<string, unknown>;
}

/**
 * Drops keywords zod emits that constrain nothing a model could send, so every request is
 * shorter: the ±2^53−1 bounds of `.int()`, `propertyNames: {type: "string"}` (object keys always
 * are strings) and `additionalProperties: {}` (anything, the default). Validation is still zod's.
 */
function withoutNoOpKeywords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNoOpKeywords);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "propertyNames" && isOnly(value, { type: "string" })) continue;
    if (key === "additionalProperties" && isOnly(value, {})) continue;
    out[key] = key === "properties" || key === "$defs" || key === "definitions" ? mapValues(value) : withoutNoOpKeywords(value);
  }
  return out;
}

/** `properties` and `$defs` map names to schemas: a property may itself be named `maximum`. */
function mapValues(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, withoutNoOpKeywords(schema)]));
}

function isOnly(value: unknown, expected: Record<string, unknown>): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && JSON.stringify(value) === JSON.stringify(expected);
}

/**
 * Parses raw model arguments against the tool's schema. Returns a message naming what was wrong
 * instead of throwing. For one-off checks (tests, ports); the loop prepares each call once with
 * `prepareToolCall` instead.
 */
export function parseToolArgs(
  tool: AnyTool,
  rawArguments: string,
): { ok: true; args: unknown } | { ok: false; error: string } {
  const json = parseArguments(rawArguments);
  if (!json.ok) return { ok: false, error: `Invalid JSON in arguments for ${tool.name}: ${json.error}` };
  const validation = validateArguments(tool, json.value);
  return validation.ok ? { ok: true, args: validation.args } : { ok: false, error: issuesText(tool.name, validation.issues) };
}

/** The tool's own description of a call, or a plain fallback when args are unusable. Never throws. */
export function describeCall(tool: AnyTool | undefined, name: string, args: unknown, ctx: DescribeContext): ToolDescription {
  const validation = tool ? validateArguments(tool, args) : undefined;
  return tool && validation?.ok ? describeArguments(tool, name, validation.args, ctx) : { title: name, locations: [] };
}
