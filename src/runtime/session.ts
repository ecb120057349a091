import { runTurn, type TurnResult } from "../agent/loop.js";
import type { EmitAgentEvent } from "../agent/events.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import type { HermesConfig } from "../config/schema.js";
import type { ChatMessage, Provider, ResolvedProvider, UserContentPart } from "../llm/types.js";
import { newId } from "../shared/ids.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolPorts } from "../tools/ports.js";
import { ToolSessionState } from "../tools/session-state.js";
import { SessionApprovals, type ApprovalSettings, type PermissionAsker } from "./approvals.js";
import { planModeRefusal } from "./edit-policy.js";

export interface SessionParts {
  id: string;
  cwd: string;
  config: HermesConfig;
  resolved: ResolvedProvider;
  provider: Provider;
  tools: ToolRegistry;
  identity?: string;
  createdAt: Date;
  hermesHome: string;
  approvalSettings: Omit<ApprovalSettings, "cwd">;
}

/**
 * One conversation: its history, its frozen system prompt, its model and tools.
 * Turns must not overlap; the caller (the adapter's session manager) serialises them.
 */
export class AgentSession {
  readonly id: string;
  readonly cwd: string;
  readonly createdAt: Date;
  readonly history: ChatMessage[] = [];
  readonly systemPrompt: string;
  /** State the session's tools keep between turns (terminal, processes, caches). */
  readonly toolState = new ToolSessionState();
  /** Edit mode and the dangerous-command patterns allowed for this session. */
  readonly approvals: SessionApprovals;
  private readonly parts: SessionParts;

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.id = parts.id;
    this.cwd = parts.cwd;
    this.createdAt = parts.createdAt;
    this.approvals = new SessionApprovals({ cwd: parts.cwd, ...parts.approvalSettings });
    this.systemPrompt = buildSystemPrompt({
      ...(parts.identity ? { identity: parts.identity } : {}),
      cwd: parts.cwd,
      model: parts.resolved.model,
      provider: parts.resolved.provider,
      startedAt: parts.createdAt,
      platform: process.platform,
    });
  }

  get model(): string {
    return this.parts.resolved.model;
  }

  get providerId(): string {
    return this.parts.resolved.provider;
  }

  /** How long an approval request may wait for the user (`approvals.timeout`). */
  get approvalTimeoutMs(): number {
    return this.parts.config.approvals.timeout * 1000;
  }

  get tools(): ToolRegistry {
    return this.parts.tools;
  }

  /** Releases what the session's tools hold (background processes, shells). Never throws. */
  dispose(): Promise<void> {
    return this.toolState.dispose();
  }

  /**
   * Runs one turn to completion (or cancellation). Never throws; see `runTurn`. Approvals asked
   * during the turn go to `asker` only, and stop with the turn's signal.
   */
  prompt(
    content: string | UserContentPart[],
    options: { emit: EmitAgentEvent; signal: AbortSignal; asker: PermissionAsker; ports?: ToolPorts },
  ): Promise<TurnResult> {
    const { config, resolved } = this.parts;
    const ports: ToolPorts = { ...options.ports, ...this.approvals.ports(options.asker, options.signal) };
    return runTurn({
      provider: this.parts.provider,
      model: resolved.model,
      systemPrompt: this.systemPrompt,
      tools: this.parts.tools,
      history: this.history,
      user: { role: "user", content },
      maxTurns: config.agent.max_turns,
      ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
      toolContext: {
        sessionId: this.id,
        cwd: this.cwd,
        hermesHome: this.parts.hermesHome,
        config,
        ports,
        state: this.toolState,
      },
      toolGate: (tool) => (this.approvals.mode === "plan" ? planModeRefusal(tool) : undefined),
      signal: options.signal,
      emit: options.emit,
      newMessageId: newId,
    });
  }
}
