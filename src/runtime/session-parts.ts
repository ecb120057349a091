/**
 * What an AgentSession is made of (built by the session factory) and what one of its turns
 * answers. Types only.
 */
import type { FallbackCandidate } from "../agent/fallback.js";
import type { EmitAgentEvent } from "../agent/events.js";
import type { TurnResult } from "../agent/loop.js";
import type { TurnRedirect } from "../agent/redirect.js";
import type { Summarize } from "../agent/compression.js";
import type { HermesConfig } from "../config/schema.js";
import type { ReasoningEffort } from "../llm/catalog.js";
import type { ChatMessage, Provider, ResolvedProvider } from "../llm/types.js";
import type { HermesError } from "../shared/errors.js";
import type { ToolPorts } from "../tools/ports.js";
import type { SessionCheckpoints } from "./checkpoints/session-checkpoints.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ResolvedToolset } from "../tools/toolsets.js";
import type { ApprovalSettings, PermissionAsker } from "./approvals.js";
import type { ReviewSettings } from "./background-review.js";
import type { SessionDelegation } from "./delegation/session-delegation.js";
import type { SessionMcp } from "./mcp/session-mcp.js";
import type { SessionRecorder } from "./recorder.js";
import type { ModelWindowLookup } from "./session-context.js";

export interface SessionParts {
  id: string;
  cwd: string;
  config: HermesConfig;
  resolved: ResolvedProvider;
  provider: Provider;
  tools: ToolRegistry;
  /** How `tools` was resolved from config.yaml's toolsets (what is left out and why, for `/tools`). */
  toolset?: ResolvedToolset;
  /** Resolves the toolsets again from config.yaml as it is now (`/reset` starts over with them). */
  resolveToolset?: () => ResolvedToolset;
  /** Built once per session and sent byte for byte every turn (restored sessions keep theirs). */
  systemPrompt: string;
  hermesHome: string;
  approvalSettings: Omit<ApprovalSettings, "cwd">;
  recorder: SessionRecorder;
  /** Restored conversation, oldest first. */
  history?: ChatMessage[];
  /** The reasoning effort the user chose for this session (restored from state.db), over config.yaml's. */
  reasoningEffort?: ReasoningEffort;
  title?: string | null;
  /** USD the restored session's calls cost before (state.db's total). */
  costUsd?: number;
  /** Ports every turn gets besides approvals (session search). */
  ports?: ToolPorts;
  /** The session's MCP servers; their tools join `tools` (see SessionMcp for when). */
  mcp?: SessionMcp;
  /** The provider's model list, for the model's context window (see `resolveContextWindow`). */
  contextWindowLookup?: ModelWindowLookup;
  /** Remembers the window a provider's error stated for a model (in memory and under HERMES_HOME). */
  learnContextWindow?: (provider: string, model: string, tokens: number) => void;
  /** Replaces the compression summary call to the session's own model. */
  summarize?: Summarize;
  /**
   * Why the session cannot call its model now (a session restored while config.yaml is broken):
   * `prompt` rejects with it. Asked at every prompt; undefined once the problem is fixed.
   */
  unusable?: () => HermesError | undefined;
  /** Sessions get a generated title after their first exchange (see session-title.ts; needs `ports.auxiliaryModel`). */
  generateTitles?: boolean;
  /** When set, a background review may follow a turn (see background-review.ts); fixed for the session. */
  review?: ReviewSettings;
  /** Its delegate_task children: told as each turn starts (asker, cancel, background results), stopped by `dispose`. */
  delegation?: SessionDelegation;
  /** Filesystem checkpoints of the session's folder (`checkpoints:`; see checkpoints/session-checkpoints.ts). */
  checkpoints?: SessionCheckpoints;
  /** The fallback chain for a turn on `main` (see fallback-chain.ts); absent = none. */
  fallbacks?: (main: ResolvedProvider) => FallbackCandidate[];
}

/** How one `AgentSession.prompt` runs: where its events go, its signal, who answers its approvals. */
export interface PromptOptions {
  emit: EmitAgentEvent;
  signal: AbortSignal;
  asker: PermissionAsker;
  ports?: ToolPorts;
  /** `/steer` guidance for this turn, taken after each tool batch (see TurnInput.takeSteering). */
  takeSteering?: () => string | undefined;
  /** Corrections typed while the turn runs (see TurnInput.redirect). */
  redirect?: TurnRedirect;
}

export interface PromptResult extends TurnResult {
  /** Set when this turn gave the session its title. */
  title?: string;
  /**
   * Set when the session could not be saved during this turn (first failure of a run): why, in
   * words for the user. The turn itself went on; what was not saved lives only in memory.
   */
  saveError?: string;
  /** Set (once per process) when state.db was found damaged: what, and how to repair it. */
  storeDamage?: string;
}
