import { runTurn, type TurnResult } from "../agent/loop.js";
import type { EmitAgentEvent } from "../agent/events.js";
import type { HermesConfig } from "../config/schema.js";
import type { ChatMessage, Provider, ResolvedProvider, UserContentPart } from "../llm/types.js";
import { newId } from "../shared/ids.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolPorts } from "../tools/ports.js";
import { ToolSessionState } from "../tools/session-state.js";
import { SessionApprovals, type ApprovalSettings, type PermissionAsker } from "./approvals.js";
import { planModeRefusal } from "./edit-policy.js";
import type { SessionRecorder } from "./recorder.js";
import { titleFromPrompt } from "./title.js";

export interface SessionParts {
  id: string;
  cwd: string;
  config: HermesConfig;
  resolved: ResolvedProvider;
  provider: Provider;
  tools: ToolRegistry;
  /** Built once per session and sent byte for byte every turn (restored sessions keep theirs). */
  systemPrompt: string;
  hermesHome: string;
  approvalSettings: Omit<ApprovalSettings, "cwd">;
  recorder: SessionRecorder;
  /** Restored conversation, oldest first. */
  history?: ChatMessage[];
  title?: string | null;
  /** Ports every turn gets besides approvals (session search). */
  ports?: ToolPorts;
}

export interface PromptResult extends TurnResult {
  /** Set when this turn gave the session its title. */
  title?: string;
}

/**
 * One conversation: its history, its frozen system prompt, its model and tools, written to
 * state.db as it goes. Turns must not overlap; the caller (the adapter's session manager)
 * serialises them.
 */
export class AgentSession {
  readonly id: string;
  readonly cwd: string;
  readonly history: ChatMessage[];
  readonly systemPrompt: string;
  /** State the session's tools keep between turns (terminal, processes, caches). */
  readonly toolState = new ToolSessionState();
  /** Edit mode and the dangerous-command patterns allowed for this session. */
  readonly approvals: SessionApprovals;
  private title: string | null;
  private readonly parts: SessionParts;

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.id = parts.id;
    this.cwd = parts.cwd;
    this.history = parts.history ? [...parts.history] : [];
    this.title = parts.title ?? null;
    this.systemPrompt = parts.systemPrompt;
    this.approvals = new SessionApprovals({ cwd: parts.cwd, ...parts.approvalSettings });
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

  get currentTitle(): string | null {
    return this.title;
  }

  /** How long an approval request may wait for the user (`approvals.timeout`). */
  get approvalTimeoutMs(): number {
    return this.parts.config.approvals.timeout * 1000;
  }

  /** Releases what the session's tools hold (background processes, shells). Never throws. */
  dispose(): Promise<void> {
    return this.toolState.dispose();
  }

  /** Marks the session ended in state.db (history is kept). Never throws. */
  end(reason: string): void {
    this.parts.recorder.end(reason);
  }

  /**
   * Runs one turn to completion (or cancellation). Never throws; see `runTurn`. Approvals asked
   * during the turn go to `asker` only, and stop with the turn's signal. Every message is
   * written to state.db as it lands; after the first exchange the session gets a title.
   */
  async prompt(
    content: string | UserContentPart[],
    options: { emit: EmitAgentEvent; signal: AbortSignal; asker: PermissionAsker; ports?: ToolPorts },
  ): Promise<PromptResult> {
    const { config, resolved, recorder } = this.parts;
    const ports: ToolPorts = { ...this.parts.ports, ...options.ports, ...this.approvals.ports(options.asker, options.signal) };
    const result = await runTurn({
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
      signal: options.signal,
      emit: options.emit,
      onAppend: (message, toolOutcome) => recorder.append(message, toolOutcome),
      newMessageId: newId,
      toolGate: (tool) => (this.approvals.mode === "plan" ? planModeRefusal(tool) : undefined),
    });
    if (result.usage) {
      recorder.addUsage({ input: result.usage.inputTokens, output: result.usage.outputTokens, reasoning: result.usage.reasoningTokens ?? 0 });
    }
    const title = this.title ? undefined : this.firstTitle();
    if (title) {
      this.title = title;
      recorder.setTitle(title);
    }
    return { ...result, ...(title ? { title } : {}) };
  }

  private firstTitle(): string | undefined {
    const first = this.history.find((message) => message.role === "user");
    if (!first) return undefined;
    const text = typeof first.content === "string" ? first.content : first.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
    return titleFromPrompt(text) || undefined;
  }
}
