import type { z } from "zod";
import type { HermesConfig } from "../config/schema.js";
import type { DetailsOf, ProgressOf } from "./details.js";
import type { ToolPorts } from "./ports.js";
import type { ToolSessionState } from "./session-state.js";
import type { SandboxSettings } from "./exec/sandbox/policy.js";

/** ACP tool kinds; the adapter shows them as-is. */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

export interface ToolLocation {
  path: string;
  line?: number;
}

/** What `describe` may know about the call besides its arguments. */
export interface DescribeContext {
  /** Absolute working directory of the session, for resolving relative paths. */
  cwd: string;
}

/** What a tool call looks like in the editor before it runs. Must not throw for any args. */
export interface ToolDescription {
  title: string;
  locations: ToolLocation[];
}

/**
 * `content` goes to the model. `details` goes to the editor (diffs, exit codes, structured
 * results), typed per tool (`DetailsOf`, see details.ts). `isError` marks failures the model can
 * correct; they do not end the turn.
 */
export interface ToolResult<Details = unknown> {
  content: string;
  details?: Details;
  isError?: boolean;
}

/**
 * Everything a tool may touch of the outside world during one call. `Progress` is what the tool
 * may report while it runs (`ProgressOf` its name; `never` for a built-in tool that reports none).
 */
export interface ToolContext<Progress = unknown> {
  sessionId: string;
  /** The model's id for this call; approvals are shown on it. */
  callId: string;
  /** Absolute working directory of the session. */
  cwd: string;
  /** `$HERMES_HOME`, for paths tools must protect (config.yaml, .env). */
  hermesHome: string;
  /** Validated config.yaml; tools read their limits from it. */
  config: HermesConfig;
  /**
   * How commands are confined this call: the session's `sandbox:` settings (fixed when it started)
   * with the mode its session mode implies (plan → read-only).
   */
  sandbox: SandboxSettings;
  /** Fires when the turn is cancelled; long-running tools must stop promptly. */
  signal: AbortSignal;
  ports: ToolPorts;
  /** State the session's tools keep between calls; released when the session ends. */
  state: ToolSessionState;
  /**
   * Reports partial results while the tool runs; the editor shows them on the tool call. Cheap to
   * call often; front ends throttle. Must not be called once `execute` has settled.
   */
  reportProgress?(details: Progress): void;
}

/**
 * A tool. `Name` is its name as a literal type where it is one: a built-in tool named in
 * `ToolDetailsMap` must return that entry's details type (checked here, at compile time, so the
 * runner and renderers may rely on it); any other tool's details are opaque (`unknown`).
 */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType, Name extends string = string> {
  name: Name;
  description: string;
  kind: ToolKind;
  /** True when the tool changes files, processes or state; mutating calls never run concurrently. */
  mutating: boolean;
  params: Schema;
  /**
   * The parameters' JSON schema as the tool's source gave it (MCP servers). When set, the model is
   * sent this schema instead of one derived from `params`, and `params` only checks loosely.
   */
  jsonSchema?: Record<string, unknown>;
  describe(args: z.infer<Schema>, ctx: DescribeContext): ToolDescription;
  /** May throw only for fatal errors; anything the model can fix is a result with `isError`. */
  execute(args: z.infer<Schema>, ctx: ToolContext<ProgressOf<Name>>): Promise<ToolResult<DetailsOf<Name>>>;
}

/** A tool with its argument, details and progress types erased, as the registry holds it. */
export type AnyTool = ToolDefinition<z.ZodType, string>;

export function defineTool<Schema extends z.ZodType, Name extends string>(tool: ToolDefinition<Schema, Name>): AnyTool {
  return tool as unknown as AnyTool;
}
