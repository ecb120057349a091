import { runTurn, type TurnResult } from "../agent/loop.js";
import type { EmitAgentEvent } from "../agent/events.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import type { HermesConfig } from "../config/schema.js";
import type { ChatMessage, Provider, ResolvedProvider, UserContentPart } from "../llm/types.js";
import { newId } from "../shared/ids.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolPorts } from "../tools/ports.js";
import { ToolSessionState } from "../tools/session-state.js";

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
  private readonly parts: SessionParts;

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.id = parts.id;
    this.cwd = parts.cwd;
    this.createdAt = parts.createdAt;
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

  get tools(): ToolRegistry {
    return this.parts.tools;
  }

  /** Releases what the session's tools hold (background processes, shells). Never throws. */
  dispose(): Promise<void> {
    return this.toolState.dispose();
  }

  /** Runs one turn to completion (or cancellation). Never throws; see `runTurn`. */
  prompt(
    content: string | UserContentPart[],
    options: { emit: EmitAgentEvent; signal: AbortSignal; ports?: ToolPorts },
  ): Promise<TurnResult> {
    const { config, resolved } = this.parts;
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
        ports: options.ports ?? {},
        state: this.toolState,
      },
      signal: options.signal,
      emit: options.emit,
      newMessageId: newId,
    });
  }
}
