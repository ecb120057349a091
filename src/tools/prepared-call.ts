import type { z } from "zod";
import type { ToolCall } from "../llm/types.js";
import type { AnyTool, DescribeContext, ToolDescription, ToolKind, ToolLocation } from "./types.js";

/** The model's argument text parsed as JSON: the value, or the parser's complaint. Blank text counts as `{}`. */
export type ParsedArguments = { ok: true; value: unknown } | { ok: false; error: string };

/** Parsed arguments checked against a tool's params: their output (coerced, defaulted), or zod's issues. */
export type ValidatedArguments = { ok: true; args: unknown } | { ok: false; issues: readonly z.core.$ZodIssue[] };

/** Where a prepared call finds its tool (a `ToolRegistry`). */
export interface ToolLookup {
  get(name: string): AnyTool | undefined;
}

/**
 * One model tool call, parsed and validated once, for everything that follows: running it,
 * deduplicating it, reporting it live, and showing it again from a stored transcript. Immutable.
 */
export interface PreparedToolCall {
  /** The call as the model sent it (id, name, raw argument text). */
  readonly call: ToolCall;
  readonly callId: string;
  readonly name: string;
  /** The session's tool of that name; undefined for a tool the session does not have. */
  readonly tool: AnyTool | undefined;
  readonly json: ParsedArguments;
  /** Undefined when the tool is unknown or the JSON did not parse. */
  readonly validation: ValidatedArguments | undefined;
  /** The validated arguments; undefined when they did not validate (or there was nothing to validate). */
  readonly args: unknown;
  /**
   * The tool name plus the arguments as canonical JSON (keys sorted, no spacing): equal for two
   * calls that would do the same. Undefined when the call cannot run (unknown tool, bad
   * arguments), as such a call fails the same way each time.
   */
  readonly dedupKey: string | undefined;
  /** The arguments as the editor sees them (ACP `rawInput`): the parsed JSON, or `{ raw }` when it did not parse. */
  readonly displayArgs: unknown;
  readonly kind: ToolKind;
  readonly title: string;
  readonly locations: ToolLocation[];
}

/** Parses a call's argument text once. Never throws. */
export function parseArguments(raw: string): ParsedArguments {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Checks parsed arguments against `tool.params`. Never throws. On failure, `issues` are built
 * when first read (zod makes its error then): a replay of stored calls never reads them.
 */
export function validateArguments(tool: AnyTool, value: unknown): ValidatedArguments {
  const parsed = tool.params.safeParse(value);
  if (parsed.success) return { ok: true, args: parsed.data };
  return {
    ok: false,
    get issues() {
      return parsed.error.issues;
    },
  };
}

/** `Invalid arguments for <tool>: <path>: <message>; …`, naming every field that was wrong. */
export function issuesText(name: string, issues: readonly z.core.$ZodIssue[]): string {
  const listed = issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "(arguments)"}: ${issue.message}`).join("; ");
  return `Invalid arguments for ${name}: ${listed}`;
}

/** The tool's own description of validated arguments, or the bare name when it throws. Never throws. */
export function describeArguments(tool: AnyTool, name: string, args: unknown, ctx: DescribeContext): ToolDescription {
  try {
    return tool.describe(args, ctx);
  } catch {
    return { title: name, locations: [] };
  }
}

/**
 * Prepares one call: parse, validate, describe, each exactly once. `dedupKey` is computed when
 * first read (only running a batch reads it; a replay does not). Pure apart from `describe`; never throws.
 */
export function prepareToolCall(call: ToolCall, tools: ToolLookup, ctx: DescribeContext): PreparedToolCall {
  const name = call.function.name;
  const tool = tools.get(name);
  const json = parseArguments(call.function.arguments);
  const validation = tool && json.ok ? validateArguments(tool, json.value) : undefined;
  const valid = validation?.ok === true;
  const description = tool && valid ? describeArguments(tool, name, validation.args, ctx) : { title: name, locations: [] };
  let dedupKey: { value: string | undefined } | undefined;
  return {
    call,
    callId: call.id,
    name,
    tool,
    json,
    validation,
    args: valid ? validation.args : undefined,
    get dedupKey() {
      dedupKey ??= { value: valid && json.ok ? dedupKeyOf(name, json.value) : undefined };
      return dedupKey.value;
    },
    displayArgs: json.ok ? json.value : { raw: call.function.arguments },
    kind: tool?.kind ?? "other",
    title: description.title,
    locations: description.locations,
  };
}

const MAX_ECHOED_ARGUMENTS = 300;

/**
 * Why a known tool's call cannot run because of its arguments, as the model is told (it names the
 * problem and asks for a corrected call); undefined when they are fine or the tool is unknown.
 */
export function argumentsProblem(prepared: PreparedToolCall): string | undefined {
  const { json, validation, name } = prepared;
  if (!prepared.tool) return undefined;
  if (!json.ok) {
    const raw = prepared.call.function.arguments;
    const shown = raw.length > MAX_ECHOED_ARGUMENTS ? `${raw.slice(0, MAX_ECHOED_ARGUMENTS)}… (${raw.length} characters)` : raw;
    return (
      `Invalid JSON in arguments for ${name}: ${json.error}. You sent: ${shown}\n` +
      "The tool was not run. Call it again with the arguments as one valid JSON object (use {} for no arguments)."
    );
  }
  if (validation && !validation.ok) return `${issuesText(name, validation.issues)}. The tool was not run; call it again with corrected arguments.`;
  return undefined;
}

/** `name` and the arguments as canonical JSON; undefined (no dedup) for arguments nested too deep to serialize. */
function dedupKeyOf(name: string, value: unknown): string | undefined {
  try {
    return `${name}\u0000${canonicalJson(value)}`;
  } catch {
    return undefined;
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
