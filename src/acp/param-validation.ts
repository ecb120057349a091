import { isAbsoluteClientPath } from "../shared/client-path.js";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";

/**
 * Strict checks of the raw `params` of the methods this agent serves, run on each incoming
 * request before the SDK sees it. The SDK's own schemas (not exported by the package) are lenient
 * by design: a malformed optional field such as `clientCapabilities: "x"` silently becomes its
 * default. Here a wrong type is an error naming the field. Objects stay open (unknown keys and
 * `_meta` pass) so newer clients keep working; finer checks (MCP servers, content blocks, config
 * values) stay with the handlers and the SDK.
 *
 * Every path a client names — `cwd` of session/new, load, resume, fork and the session/list
 * filter, and `additionalDirectories` — must be absolute and free of NUL bytes.
 */

/** An absolute filesystem path without NUL bytes. Messages never echo the value. */
const path = z
  .string()
  .refine((value) => !value.includes("\0"), "must not contain a NUL byte")
  .refine((value) => isAbsoluteClientPath(value), "must be an absolute path");

const sessionId = z.string();
const optionalBoolean = z.boolean().nullish();
const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);
const mcpServers = z.array(z.unknown()).nullish();
const additionalDirectories = z.array(path).nullish();

const clientCapabilities = loose({
  fs: loose({ readTextFile: optionalBoolean, writeTextFile: optionalBoolean }).nullish(),
  terminal: optionalBoolean,
  auth: loose({ terminal: optionalBoolean }).nullish(),
  session: loose({}).nullish(),
});

const SCHEMAS: Record<string, z.ZodType> = {
  initialize: loose({
    protocolVersion: z.int().gte(0).lte(65535),
    clientCapabilities: clientCapabilities.nullish(),
    clientInfo: loose({ name: z.string().nullish(), title: z.string().nullish(), version: z.string().nullish() }).nullish(),
  }),
  authenticate: loose({ methodId: z.string() }),
  "session/new": loose({ cwd: path, mcpServers, additionalDirectories }),
  "session/load": loose({ sessionId, cwd: path, mcpServers, additionalDirectories }),
  "session/resume": loose({ sessionId, cwd: path, mcpServers, additionalDirectories }),
  "session/fork": loose({ sessionId, cwd: path, mcpServers, additionalDirectories }),
  "session/list": loose({ cwd: path.nullish(), cursor: z.string().nullish() }),
  "session/close": loose({ sessionId }),
  "session/delete": loose({ sessionId }),
  "session/set_mode": loose({ sessionId, modeId: z.string() }),
  "session/set_model": loose({ sessionId, modelId: z.string() }),
  "session/set_config_option": loose({ sessionId, configId: z.string(), value: z.union([z.string(), z.boolean()]) }),
  "session/prompt": loose({ sessionId, prompt: z.array(loose({ type: z.string() })) }),
  "session/cancel": loose({ sessionId }),
};

/** Methods whose params are checked here. */
export const VALIDATED_METHODS: ReadonlySet<string> = new Set(Object.keys(SCHEMAS));

/**
 * The -32602 error for `params` of `method`, or undefined when they pass (or the method is not
 * one checked here). Absent params count as `{}`, as in the SDK. The message names the first
 * offending field (`Invalid params: clientCapabilities: expected object, received string`) and
 * `data.field` carries its dotted path; neither ever contains the value that was sent.
 */
export function paramsError(method: string, params: unknown): RequestError | undefined {
  const schema = SCHEMAS[method];
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
