import type { FallbackCandidate } from "../../agent/fallback.js";
import type { HermesConfig } from "../../config/schema.js";
import type { ModelRequest, Provider, ResolvedProvider } from "../../llm/types.js";
import type { StateStore } from "../../store/state-store.js";
import type { DelegateChildResult, DelegatePort, DelegateTaskSpec, ToolPorts } from "../../tools/ports.js";
import type { AnyTool } from "../../tools/types.js";
import type { PermissionAsker } from "../approvals.js";
import type { SessionMode } from "../edit-policy.js";

/**
 * What delegation needs of the session that delegates (built by the session factory; for an
 * orchestrator child, derived from the child). Getters are read when a child starts, so a model
 * switch or a mode change between turns reaches the next children.
 */
export interface DelegationParent {
  /** The delegating session's id: its children's `parent_session_id`. */
  id: string;
  cwd: string;
  hermesHome: string;
  /** Its config as it started (limits and approval settings never change under it). */
  config: HermesConfig;
  /** The environment the agent runs in (toolset availability, an ACP child's environment). */
  env: NodeJS.ProcessEnv;
  /** Where children are stored (source `subagent`); absent = not stored (tests). */
  store?: StateStore;
  /** Its model now, and the fallback chain for it; children run on them. */
  model(): { resolved: ResolvedProvider; provider: Provider; reasoningEffort?: ModelRequest["reasoningEffort"]; fallbacks?: readonly FallbackCandidate[] };
  /** Its tools now, in the order its model sees them (built-ins and MCP tools). */
  tools(): readonly AnyTool[];
  /** Its session mode now. */
  mode(): SessionMode;
}

/** One child to run, as the delegation hands it to a runner. */
export interface ChildRun {
  parent: DelegationParent;
  task: DelegateTaskSpec;
  taskIndex: number;
  /** The child's number as the user reads it: `2`, or `1.2` for a child of child 1. */
  path: string;
  /** The child's own depth (the parent's + 1). */
  depth: number;
  /** The parent's delegate_task call (approvals are shown on it). */
  callId: string;
  /** The child's cancellation. Runners stop promptly and still resolve. */
  signal: AbortSignal;
  /** Ports of the parent's turn that children share (editor buffers, notifications, search). */
  inherit: ToolPorts;
  onProgress: (line: string) => void;
  /** The parent session's permission asker now. */
  asker: () => PermissionAsker | undefined;
  /** A delegate port for an orchestrator child (`child` describes it as a parent). */
  nested: (child: DelegationParent, path: string) => DelegatePort;
}

/** A runner resolves with the child's result; it never rejects. */
export type ChildRunner = (run: ChildRun) => Promise<DelegateChildResult>;
