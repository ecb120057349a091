import { runTurn, type TurnResult } from "../agent/loop.js";
import type { CompactionEvent } from "../agent/events.js";

export type { AgentEvent, EmitAgentEvent } from "../agent/events.js";
import type { ChatMessage, Provider, ResolvedProvider, TokenUsage, UserContentPart } from "../llm/types.js";
import { SessionCost } from "./session-cost.js";
import { newId } from "../shared/ids.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyTool } from "../tools/types.js";
import type { ToolPorts } from "../tools/ports.js";
import type { SessionCheckpoints } from "./checkpoints/session-checkpoints.js";
import { ToolSessionState } from "../tools/session-state.js";
import { SessionApprovals } from "./approvals.js";
import { planModeGate } from "./plan-mode.js";
import type { SessionMcp } from "./mcp/session-mcp.js";
import { sessionToolContext, turnModelSettings } from "./turn-inputs.js";
import { SessionTitle } from "./session-title.js";
import { resetMarker } from "./history-reset.js";
import { resetReadDedup } from "../tools/file-tracker/file-tracker.js";
import { resetBrowserSession } from "../tools/browser/state.js";
import type { CompressionReport, ContextCompressor } from "../agent/compression.js";
import { createSessionCompressor, type SessionContextUsage } from "./session-context.js";
import type { ResolvedToolset } from "../tools/toolsets.js";
import { supportsReasoningEffort, type ReasoningEffort } from "../llm/catalog.js";
import { configuredReasoningEffort } from "./reasoning-effort.js";
import { withModelLines } from "./model-switch.js";
import { BackgroundReviewer, ReviewCadence, turnSummary } from "./background-review.js";
import { modelFit } from "./model-fit.js";
import { withAutoApprovedEdits } from "./edit-preview.js";

export type { PromptOptions, PromptResult, SessionParts } from "./session-parts.js";
import type { PromptOptions, PromptResult, SessionParts } from "./session-parts.js";

/** How long closing a session waits for its queued writes (a locked state.db) before giving up on them. */
const DISPOSE_SETTLE_MS = 1500;

/**
 * One conversation: its history, its frozen system prompt, its model and tools, written to
 * state.db as it goes. Turns must not overlap; the caller (the adapter's session manager)
 * serialises them.
 */
export class AgentSession {
  readonly id: string;
  readonly cwd: string;
  readonly history: ChatMessage[];
  /** Sent byte for byte every turn; replaced only by `setModel`. */
  systemPrompt: string;
  /** State the session's tools keep between turns (terminal, processes, caches). */
  readonly toolState = new ToolSessionState();
  private effort: ReasoningEffort | undefined;
  /** Edit mode and the dangerous-command patterns allowed for this session. */
  readonly approvals: SessionApprovals;
  private readonly title: SessionTitle;
  private parts: SessionParts;
  /** What the model is sent of `history` (compressed past the threshold; history stays whole). */
  private readonly context: ContextCompressor;
  /** The session's models that refused image input (`provider\0model`): their calls get notes instead of images. */
  private readonly textOnlyModels = new Set<string>();
  private readonly cadence: ReviewCadence | undefined;
  private readonly reviewer = new BackgroundReviewer();
  private readonly cost: SessionCost;
  private readonly compactionListeners = new Set<(event: CompactionEvent) => void>();

  constructor(parts: SessionParts) {
    this.cost = new SessionCost(parts.costUsd ?? 0, parts.config.pricing);
    this.parts = parts;
    this.id = parts.id;
    this.cwd = parts.cwd;
    this.history = parts.history ? [...parts.history] : [];
    this.effort = parts.reasoningEffort;
    this.title = new SessionTitle({
      initial: parts.title ?? null,
      ...(parts.generateTitles && parts.ports?.auxiliaryModel ? { auxiliaryModel: parts.ports.auxiliaryModel } : {}),
      store: (title) => parts.recorder.setTitle(title),
    });
    this.systemPrompt = parts.systemPrompt;
    this.approvals = new SessionApprovals({ cwd: parts.cwd, ...parts.approvalSettings });
    this.cadence = parts.review ? new ReviewCadence(parts.review) : undefined;
    this.context = createSessionCompressor({
      config: parts.config,
      model: () => this.model,
      provider: () => this.parts.provider,
      providerId: () => this.providerId,
      systemPrompt: () => this.systemPrompt,
      tools: parts.tools,
      toolState: this.toolState,
      contextWindowLookup: parts.contextWindowLookup,
      summarize: parts.summarize,
      onCompaction: (event) => {
        for (const listener of this.compactionListeners) listener(event);
      },
    });
  }

  /**
   * Hears every compression of this session's conversation (automatic in a turn, `/compress`, the
   * context-overflow recovery) as it starts and ends; answers the unsubscribe. Listeners must not
   * throw (a throw is logged and ignored).
   */
  onCompaction(listener: (event: CompactionEvent) => void): () => void {
    this.compactionListeners.add(listener);
    return () => this.compactionListeners.delete(listener);
  }

  get model(): string {
    return this.parts.resolved.model;
  }

  /** The wire provider of the current model. */
  get modelProvider(): Provider {
    return this.parts.provider;
  }

  /** The session's filesystem checkpoints (`/rollback`); undefined where the session keeps none. */
  get checkpoints(): SessionCheckpoints | undefined {
    return this.parts.checkpoints;
  }

  get providerId(): string {
    return this.parts.resolved.provider;
  }

  /** Endpoint, key and model the next turn uses. Contains the API key: never log it. */
  get resolved(): ResolvedProvider {
    return this.parts.resolved;
  }

  /**
   * Whether the current model takes a reasoning effort that this agent can send: over chat
   * completions, the Responses API, or Anthropic's Messages API (extended thinking, its signed
   * blocks kept in history and sent back).
   */
  get supportsReasoningEffort(): boolean {
    const { apiMode } = this.parts.resolved;
    return (apiMode === "chat_completions" || apiMode === "responses" || apiMode === "anthropic_messages") && supportsReasoningEffort(this.parts.resolved.model);
  }

  /**
   * The reasoning effort sent with each call: the one the user chose for this session (kept in
   * state.db), else config.yaml's for the current model (see `configuredReasoningEffort`), else
   * undefined for the model's own default.
   */
  get reasoningEffort(): ReasoningEffort | undefined {
    return this.effort ?? configuredReasoningEffort(this.parts.config.agent, this.parts.resolved.model);
  }

  /**
   * Sets the session's reasoning effort from the next turn on (applies only to models that support
   * it), whatever model it switches to; state.db keeps it for a load, resume or fork.
   */
  setReasoningEffort(effort: ReasoningEffort): void {
    this.effort = effort;
    this.parts.recorder.setReasoningEffort(effort);
  }

  /**
   * Switches model and possibly provider from the next turn on; a running turn keeps the model
   * it started with, so callers switch between turns. The frozen system prompt's `Model:` /
   * `Provider:` lines would no longer match, so it is replaced: by `systemPrompt` when given (the
   * runtime rebuilds it, as Hermes rebuilds the agent), else by the old prompt with those lines
   * rewritten. state.db records the new model and provider. Never throws.
   */
  setModel(resolved: ResolvedProvider, provider: Provider, systemPrompt?: string): void {
    this.parts = { ...this.parts, resolved, provider };
    this.systemPrompt = systemPrompt ?? withModelLines(this.systemPrompt, resolved.model, resolved.provider);
    this.parts.recorder.switchModel({ model: resolved.model, provider: resolved.provider, baseUrl: resolved.baseUrl, systemPrompt: this.systemPrompt });
  }

  /** How the session's tools were resolved (undefined for sessions built without toolsets, in tests). */
  get toolset(): ResolvedToolset | undefined {
    return this.parts.toolset;
  }

  get tools(): ToolRegistry {
    return this.parts.tools;
  }

  get currentTitle(): string | null {
    return this.title.current;
  }

  /** Calls `listener` with each title the session gets after the turn that named it (a generated title); answers the unsubscribe. */
  onTitleChange(listener: (title: string) => void): () => void {
    return this.title.onChange(listener);
  }

  /** How long an approval request may wait for the user (`approvals.timeout`, capped at the longest delay a timer can hold). */
  get approvalTimeoutMs(): number {
    return Math.min(this.parts.config.approvals.timeout * 1000, 2_147_483_647);
  }

  /** The session's MCP servers, when it has any. */
  get mcp(): SessionMcp | undefined {
    return this.parts.mcp;
  }

  /** Releases what the session's tools hold (background processes, shells, MCP servers). Never throws. */
  async dispose(): Promise<void> {
    // also a turn still answering must not start a review once the session is gone
    this.reviewer.close();
    this.title.close();
    await Promise.allSettled([this.parts.delegation?.dispose(), this.toolState.dispose(), this.parts.mcp?.dispose(), this.parts.recorder.close(DISPOSE_SETTLE_MS), this.reviewer.idle()]);
  }

  /**
   * Resolves once the session's queued writes are stored (or failing for a reason the next
   * prompt reports, or still locked after `graceMs`). Never rejects. For readers of state.db that
   * need this session's latest state (fork, load).
   */
  saved(graceMs?: number): Promise<void> {
    return this.parts.recorder.settle(graceMs);
  }

  /** True while some of the session's writes are not in state.db yet (locked, failing). */
  get unsaved(): boolean {
    return this.parts.recorder.pending;
  }

  /** Marks the session ended in state.db (history is kept). Never throws. */
  end(reason: string): void {
    this.parts.recorder.end(reason);
  }

  /**
   * Runs one turn to completion (or cancellation); see `runTurn`. Rejects only with the
   * HermesError of `unusable` (before anything happens). Approvals asked
   * during the turn go to `asker` only, and stop with the turn's signal. Every message is
   * written to state.db as it lands; after the first exchange the session gets a title.
   */
  async prompt(content: string | UserContentPart[], options: PromptOptions): Promise<PromptResult> {
    const { config, resolved, recorder } = this.parts;
    const unusable = this.parts.unusable?.();
    if (unusable) throw unusable;
    // A review still running gives way to the user's turn (Hermes' foreground priority); what it saved is told first.
    this.reviewer.cancel("a new turn started");
    const notice = this.reviewer.takeNotice();
    if (notice) options.ports?.notifyUser?.(notice);
    const approvals = this.approvals;
    const turnStart = this.history.length;
    // MCP servers still starting get a bounded wait, so their tools are there for the first model call.
    await this.parts.mcp?.beforeTurn(options.signal);
    const ports: ToolPorts = {
      ...this.parts.ports,
      ...options.ports,
      ...this.approvals.ports(options.asker, options.signal),
      ...this.parts.checkpoints?.turnPorts(options.ports?.notifyUser),
    };
    // Background children's finished results go before the user's message; this turn's asker is the one children use.
    const user = this.parts.delegation?.beginTurn({ asker: options.asker, signal: options.signal, notifyUser: ports.notifyUser }, content) ?? content;
    let result: TurnResult;
    let turnCost = 0;
    try {
      result = await runTurn({
        provider: this.parts.provider,
        ...turnModelSettings(config, resolved, this.supportsReasoningEffort ? this.reasoningEffort : undefined, this.parts.fallbacks),
        systemPrompt: this.systemPrompt,
        tools: this.parts.tools,
        history: this.history,
        user: { role: "user", content: user },
        toolContext: this.toolContext({ ports, state: this.toolState }),
        signal: options.signal,
        emit: (event) => {
          if (event.type === "usage") {
            this.context.noteUsage(event.usage, this.history);
            turnCost += this.noteCost(event.usage);
          }
          options.emit(event.type === "tool_start" ? withAutoApprovedEdits(event, approvals, this.cwd) : event);
        },
        prepareMessages: (history, signal) => this.context.prepareMessages(history, signal),
        ...modelFit({ compressor: this.context, config, resolved, learn: this.parts.learnContextWindow, textOnlyModels: this.textOnlyModels }),
        onAppend: (message, toolOutcome) => recorder.append(message, toolOutcome),
        onStreamText: (piece, first) => recorder.streaming(piece, first),
        newMessageId: newId,
        toolGate: this.modeGate,
        ...(options.takeSteering ? { takeSteering: options.takeSteering } : {}),
        ...(options.redirect ? { redirect: options.redirect } : {}),
      });
    } catch (error) {
      // runTurn never throws; a throwing callback still must not leave a partial answer tracked.
      recorder.endTurn();
      throw error;
    }
    if (result.usage) {
      recorder.addUsage({ input: result.usage.inputTokens, output: result.usage.outputTokens, reasoning: result.usage.reasoningTokens ?? 0, cost: turnCost });
    }
    const title = this.title.afterTurn(this.history);
    recorder.endTurn();
    await recorder.settle();
    const saveError = recorder.takeFailure();
    const storeDamage = recorder.takeDamage();
    this.maybeReview(turnStart, result);
    return { ...result, ...(title ? { title } : {}), ...(saveError ? { saveError } : {}), ...(storeDamage ? { storeDamage } : {}) };
  }

  /**
   * The context meter: `used` = estimated tokens of the next request (system prompt, the
   * messages the model would be sent, tool schemas; calibrated by the provider's last reported
   * prompt tokens), `size` = the model's context window (ACP `usage_update`). `tokens` / `window`
   * repeat them for `/context`, with the compression threshold and whether it is automatic.
   */
  contextUsage(): SessionContextUsage {
    const used = this.context.estimate(this.history);
    const size = this.context.window();
    const { threshold, enabled } = this.parts.config.compression;
    return { used, size, tokens: used, window: size, threshold, enabled };
  }

  /**
   * `/compress`: summarizes the middle of the conversation now, whatever the threshold. The
   * history (and state.db) keep every message; the model is sent the compressed view from the
   * next call on, and read_file's dedup is reset. Resolves with `report.text` =
   * `A -> B messages, ~X -> ~Y tokens` (or why nothing was compressed); rejects with HermesError
   * `provider_error` when the summary call fails, or an AbortError when `signal` fires. During
   * a turn it waits for the turn's own compression check, never racing it.
   */
  compress(signal: AbortSignal): Promise<CompressionReport> {
    return this.context.compressNow(this.history, signal);
  }

  /**
   * `/reset`: clears the conversation in place (same id, same title). The model sees none of it
   * from the next turn on, and reads are no longer deduplicated against results it lost. state.db
   * keeps the earlier messages behind a reset marker (see history-reset.ts), so a later load,
   * resume or fork starts after it too. The tools are resolved again from config.yaml's toolsets
   * (MCP tools stay) and the session's browser, if one runs, is closed. Must not be called while a turn runs.
   */
  resetHistory(): void {
    const resolved = this.parts.resolveToolset?.();
    if (resolved) {
      const builtins = new Set(this.parts.toolset?.tools ?? []);
      this.parts.tools.replace(resolved.tools, (tool) => builtins.has(tool));
      this.parts.toolset = resolved;
    }
    // A new conversation gets a new browser: nothing the old one logged in to or stored carries over.
    void resetBrowserSession(this.toolState);
    if (this.history.length === 0) return;
    this.history.length = 0;
    this.parts.recorder.append(resetMarker());
    resetReadDedup(this.toolState);
  }

  /** Resolves once no title call is running (see session-title.ts). Never rejects. */
  titleSettled(): Promise<void> {
    return this.title.idle();
  }

  /** Resolves once no background review is scheduled or running. Never rejects. */
  backgroundReview(): Promise<void> {
    return this.reviewer.idle();
  }

  /** Counts the turn that began at `turnStart` and schedules the reviews it made due. Never throws. */
  private maybeReview(turnStart: number, result: TurnResult): void {
    const kinds = this.cadence?.afterTurn(turnSummary(this.history.slice(turnStart), result.stopReason, this.parts.tools.names()));
    if (!kinds) return;
    const { config, resolved, recorder } = this.parts;
    this.reviewer.schedule({
      kinds,
      provider: this.parts.provider,
      model: resolved.model,
      providerLabel: resolved.provider,
      systemPrompt: this.systemPrompt,
      tools: this.parts.tools,
      conversation: this.context.view(this.history),
      toolContext: this.toolContext({}),
      // what the session may not do in Plan mode, its review may not do either
      sessionGate: this.modeGate,
      ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
      onUsage: (usage) => recorder.addUsage({ input: usage.inputTokens, output: usage.outputTokens, reasoning: usage.reasoningTokens ?? 0, cost: this.noteCost(usage) }),
    });
  }

  /**
   * What the session's model calls cost so far in USD (stored total plus this process's calls):
   * provider-reported costs, else `pricing:` prices; calls of unknown price count 0.
   */
  get costUsd(): number {
    return this.cost.total;
  }

  /** Adds one call's cost to the session's total; answers it (0 when unknown). Never throws. */
  private noteCost(usage: TokenUsage): number {
    return this.cost.note(usage, this.model);
  }

  private toolContext<T extends object>(extra: T) {
    return sessionToolContext({ id: this.id, cwd: this.cwd, hermesHome: this.parts.hermesHome, config: this.parts.config, approvals: this.approvals }, extra);
  }

  /** Refuses what the session's current mode does not allow (plan mode), for its turns and its review alike. */
  private readonly modeGate = (tool: AnyTool): string | undefined =>
    this.approvals.mode === "plan" ? planModeGate(tool, { sandboxed: this.parts.config.sandbox.mode !== "off" }) : undefined;
}
