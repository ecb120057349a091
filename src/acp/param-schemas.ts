import { isAbsoluteClientPath } from "../shared/client-path.js";
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
 *
 * Only the schemas live here, without the SDK (param-validation.ts turns a failure into its
 * -32602 answer), so `initialize` is checked the same way before the SDK loads (early-initialize.ts).
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

export const PARAM_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
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
