import { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { z } from "zod";
import { PARAM_SCHEMAS } from "./param-schemas.js";

/**
 * The -32602 answers of the strict params checks (param-schemas.ts), run on each incoming request
 * before the SDK sees it.
 */

/** Methods whose params are checked here. */
export const VALIDATED_METHODS: ReadonlySet<string> = new Set(Object.keys(PARAM_SCHEMAS));

/**
 * The -32602 error for `params` of `method`, or undefined when they pass (or the method is not
 * one checked here). Absent params count as `{}`, as in the SDK. The message names the first
 * offending field (`Invalid params: clientCapabilities: expected object, received string`) and
 * `data.field` carries its dotted path; neither ever contains the value that was sent.
 */
export function paramsError(method: string, params: unknown): RequestError | undefined {
  const schema = PARAM_SCHEMAS[method];
  if (!schema) return undefined;
  const result = schema.safeParse(params ?? {}, { reportInput: true });
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : "params";
  return RequestError.invalidParams({ field }, `${field}: ${describeIssue(issue)}`);
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "invalid";
  if (issue.code === "invalid_type") {
    return issue.input === undefined ? `required ${issue.expected}` : `expected ${issue.expected}, received ${typeName(issue.input)}`;
  }
  return issue.message.length > 200 ? `${issue.message.slice(0, 200)}…` : issue.message;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
