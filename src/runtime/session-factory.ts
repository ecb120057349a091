import { SessionCheckpoints } from "./checkpoints/session-checkpoints.js";
import { clientPath, isAbsoluteClientPath } from "../shared/client-path.js";
import type { HomePaths } from "../config/paths.js";
import { addCommandAllowlistEntry } from "../config/write.js";
import { defaultConfig, type HermesConfig } from "../config/schema.js";
import type { ChatMessage, ModelRequest, Provider, ProviderEvent, ResolvedProvider } from "../llm/types.js";
import { errorMessage, HermesError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { log } from "../shared/logger.js";
import { ToolRegistry } from "../tools/registry.js";
import { restoreTodosFromHistory } from "../tools/todo/restore.js";
import { resolveToolset, type ResolvedToolset } from "../tools/toolsets.js";
import type { StateStore } from "../store/state-store.js";
import type { SessionRecord } from "../store/types.js";
import { hideCredentialsFromCommands, type ConfigSource } from "./config-source.js";
import { sessionServerSpecs, type McpServerInput } from "./mcp/server-spec.js";
import { SessionMcp } from "./mcp/session-mcp.js";
import { SessionRecorder } from "./recorder.js";
import type { SessionDirectory, TranscriptEntry } from "./session-directory.js";
import { createAuxiliaryPort } from "./auxiliary-port.js";
import { titleGenerationEnabled } from "./title.js";
import { createGuardian } from "./approval-guardian.js";
import { reviewSettings, type ReviewSettings } from "./background-review.js";
import { createSessionSearchPort } from "./session-search-port.js";
import { SessionDelegation } from "./delegation/session-delegation.js";
import { createFallbackChain } from "./fallback-chain.js";
import { AgentSession } from "./session.js";
import type { ReasoningEffort } from "../llm/catalog.js";
import { storedReasoningEffort } from "./reasoning-effort.js";
import { sessionContextWindow, type ModelWindowLookup } from "./session-context.js";
import { buildSessionSystemPrompt, memorySection, skillsSection, storedPromptFits } from "./session-prompt.js";

/** What a session is opened with besides its cwd. */
export interface SessionOpenOptions {
  /**
   * MCP servers the editor passed (already validated: unique names). They, and config.yaml's
   * `mcp_servers`, connect in the background; see SessionMcp.
   */
  mcpServers?: readonly McpServerInput[];
  /** The front end can ask the user questions (ACP form elicitation); without it `clarify` is left out. */
  canAskUser?: boolean;
}

/**
 * Builds live sessions: new, restored from state.db (also while config.yaml is broken), forked;
 * their system prompt, tools, MCP servers, provider and recorder; and switches their model.
 */
export class SessionFactory {
  private readonly toolsets = new WeakMap<HermesConfig, ResolvedToolset>();
  /** What a new session's first update tells the user (the model chosen from the endpoint's list). */
  private readonly notices = new WeakMap<AgentSession, string>();

  constructor(
    private readonly paths: HomePaths,
    private readonly config: ConfigSource,
    private readonly store: StateStore,
    private readonly directory: SessionDirectory,
    private readonly contextWindowLookup: ModelWindowLookup | undefined,
    /** Remembers a window a provider's error stated (see ContextLengthCache). */
    private readonly learnContextWindow?: (provider: string, model: string, tokens: number) => void,
  ) {}

  /**
   * A new session rooted at the absolute `cwd`. Nothing is written until its first message.
   * Without a configured model the endpoint's model list decides (see `takeOpeningNotice`).
   * Throws HermesError `invalid_params` for a relative cwd, `config_invalid` for a broken
   * config.yaml, `auth_required` without a provider or model.
   */
  async create(folder: string, options: { source?: string } & SessionOpenOptions = {}): Promise<AgentSession> {
    const cwd = absoluteCwd(folder);
    const config = this.config.load();
    const { resolved, notice } = await this.config.resolveForSession(config);
    const id = newId();
    const systemPrompt = await this.systemPrompt(config, resolved, cwd, new Date());
    const session = await this.assemble({ id, cwd, config, resolved, systemPrompt, source: options.source ?? "acp", mcpServers: options.mcpServers ?? [], canAskUser: options.canAskUser ?? false });
    if (notice) this.notices.set(session, notice);
    return session;
  }

  /** The sentence a new session's first update should carry (once), e.g. which model was chosen from the endpoint's list. */
  takeOpeningNotice(session: AgentSession): string | undefined {
    const notice = this.notices.get(session);
    this.notices.delete(session);
    return notice;
  }

  /**
   * A stored session, ready to continue in `cwd` (default: where it ran): its history, title
   * and frozen system prompt (rebuilt when the model or provider changed since). Undefined when
   * no such session is stored. Throws like `createSession` for config and provider problems.
   */
  async restore(id: string, cwd?: string, options: SessionOpenOptions = {}): Promise<AgentSession | undefined> {
    return (await this.restoreWithTranscript(id, cwd, options))?.session;
  }

  /** `restoreSession`, also answering the stored transcript (read once) for a replay. */
  async restoreWithTranscript(
    id: string,
    cwd?: string,
    options: SessionOpenOptions = {},
  ): Promise<{ session: AgentSession; transcript: TranscriptEntry[] } | undefined> {
    if (cwd !== undefined) cwd = absoluteCwd(cwd);
    const record = this.store.getSession(id);
    if (!record) return undefined;
    const transcript = this.directory.transcript(id);
    const loaded = this.config.current();
    // A broken config.yaml still restores the stored conversation; prompting names the problem.
    if (!loaded.ok) return { session: await this.restoreDetached(record, cwd ?? record.cwd ?? process.cwd(), transcript, options), transcript };
    const config = loaded.config;
    const resolved = this.config.storedModel(config, record.provider, record.model) ?? this.config.resolve(config);
    const sessionCwd = cwd ?? record.cwd ?? process.cwd();
    const stored = record.systemPrompt;
    const systemPrompt =
      storedPromptFits(stored, resolved.model, resolved.provider) && sessionCwd === record.cwd
        ? stored
        : await this.systemPrompt(config, resolved, sessionCwd, new Date(record.startedAt));
    const session = await this.assemble({
      id,
      cwd: sessionCwd,
      config,
      resolved,
      systemPrompt,
      source: record.source,
      history: transcript.map((entry) => entry.message),
      title: record.title,
      costUsd: record.costUsd,
      reasoningEffort: storedReasoningEffort(record.modelConfig),
      parentSessionId: record.parentSessionId,
      mcpServers: options.mcpServers ?? [],
      canAskUser: options.canAskUser ?? false,
    });
    return { session, transcript };
  }

  /**
   * A stored session restored while config.yaml is broken: every default setting, the model it
   * was stored with, and a provider resolved from config.yaml at its first model call. Its
   * prompts reject with the config error until the file is fixed.
   */
  private async restoreDetached(record: SessionRecord, cwd: string, transcript: TranscriptEntry[], options: SessionOpenOptions): Promise<AgentSession> {
    const config = defaultConfig();
    const resolved: ResolvedProvider = {
      provider: record.provider ?? "custom",
      apiMode: "chat_completions",
      baseUrl: typeof record.modelConfig.base_url === "string" ? record.modelConfig.base_url : "",
      apiKey: "",
      model: record.model ?? "",
      source: "state.db (config.yaml is invalid)",
    };
    const unusable = (): HermesError | undefined => {
      const now = this.config.current();
      return now.ok ? undefined : now.error;
    };
    const provider: Provider = {
      id: resolved.provider,
      stream: (request, signal) => this.streamWithCurrentConfig(request, signal),
    };
    return this.assemble({
      id: record.id,
      cwd,
      config,
      resolved,
      provider,
      unusable,
      systemPrompt: record.systemPrompt ?? "",
      source: record.source,
      history: transcript.map((entry) => entry.message),
      title: record.title,
      costUsd: record.costUsd,
      reasoningEffort: storedReasoningEffort(record.modelConfig),
      parentSessionId: record.parentSessionId,
      mcpServers: options.mcpServers ?? [],
      canAskUser: options.canAskUser ?? false,
    });
  }

  /** A model call through the provider config.yaml names now (for sessions restored while it was broken). */
  private async *streamWithCurrentConfig(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    let provider: Provider;
    try {
      const config = this.config.load();
      provider = await this.config.provider(this.config.resolve(config), config);
    } catch (error) {
      yield { type: "error", kind: "bad_request", message: errorMessage(error) };
      return;
    }
    yield* provider.stream(request, signal);
  }

  /** A copy of a stored session under a new id, in `cwd`, with `parent_session_id` set. */
  async fork(sourceId: string, folder: string, options: SessionOpenOptions = {}): Promise<AgentSession | undefined> {
    const cwd = absoluteCwd(folder);
    if (!this.store.getSession(sourceId)) return undefined;
    const newIdValue = newId();
    this.store.forkSession(sourceId, { newId: newIdValue, cwd });
    return this.restore(newIdValue, cwd, options);
  }

  /**
   * Connects MCP servers the editor names again for a session that stays live (a load or resume
   * of a session already open): servers it already has are kept, new ones start in the background.
   */
  addMcpServers(session: AgentSession, servers: readonly McpServerInput[]): void {
    if (!session.mcp || servers.length === 0) return;
    const loaded = this.config.current();
    session.mcp.start(sessionServerSpecs(servers, loaded.ok ? loaded.config : undefined, session.toolset, this.config.env));
  }

  /**
   * Switches `session` to `value` (see `resolveModel`) from its next turn: the provider for the
   * new endpoint, the system prompt rebuilt for the new model (SOUL.md, project context,
   * environment), state.db updated. Callers make sure no turn is running. Throws like
   * `resolveModel`, leaving the session unchanged.
   */
  async switchModel(session: AgentSession, value: string): Promise<ResolvedProvider> {
    const config = this.config.load();
    const resolved = this.config.resolveModel(value, session.resolved, config);
    const provider = await this.config.provider(resolved, config);
    const systemPrompt = await this.systemPrompt(config, resolved, session.cwd, new Date());
    session.setModel(resolved, provider, systemPrompt);
    return resolved;
  }

  private async assemble(input: {
    id: string;
    cwd: string;
    config: HermesConfig;
    resolved: ResolvedProvider;
    systemPrompt: string;
    source: string;
    history?: ChatMessage[];
    title?: string | null;
    /** The stored session's cost so far (USD). */
    costUsd?: number;
    /** The reasoning effort the user chose for the stored session. */
    reasoningEffort?: ReasoningEffort | undefined;
    parentSessionId?: string | null;
    mcpServers: readonly McpServerInput[];
    canAskUser: boolean;
    /** Instead of the provider for `resolved`. */
    provider?: Provider;
    unusable?: () => HermesError | undefined;
  }): Promise<AgentSession> {
    const { config, resolved } = input;
    hideCredentialsFromCommands(config, resolved);
    const meta = this.store.createSession({
      id: input.id,
      cwd: input.cwd,
      model: resolved.model,
      provider: resolved.provider,
      systemPrompt: input.systemPrompt,
      source: input.source,
      parentSessionId: input.parentSessionId ?? null,
      modelConfig: { base_url: resolved.baseUrl },
    });
    // The tool list is fixed for the session (the provider's prompt cache keys on it).
    const toolset = forFrontEnd(this.toolsetFor(config), input.canAskUser);
    for (const name of toolset.unknown) log.warn(`config.yaml names toolset "${name}", which does not exist; ignored`);
    const tools = new ToolRegistry(toolset.tools);
    const provider = input.provider ?? (await this.config.provider(resolved, config));
    const mcp = new SessionMcp({ cwd: input.cwd, env: this.config.env, tools });
    mcp.start(sessionServerSpecs(input.mcpServers, config, toolset, this.config.env));
    // The auxiliary port follows the session's model as it is switched; it is only asked during turns.
    const current = (): AgentSession => {
      if (!session) throw new Error("auxiliary model asked before the session exists");
      return session;
    };
    const auxiliaryModel = createAuxiliaryPort({
      config,
      session: () => ({ resolved: current().resolved, provider: current().modelProvider }),
      resolveModel: (value, on) => this.config.resolveModel(value, on, config),
      provider: (endpoint) => this.config.provider(endpoint, config),
    });
    // Fallbacks resolve on first use, once per session, for its turns and its children alike.
    const fallbacks = createFallbackChain({ config, env: this.config.env, provider: (endpoint) => this.config.provider(endpoint, config) });
    // Children run on the session's model and mode as they are when each child starts.
    const delegation = new SessionDelegation({
      parent: {
        id: input.id,
        cwd: input.cwd,
        hermesHome: this.paths.home,
        config,
        env: this.config.env,
        store: this.store,
        model: () => ({
          resolved: current().resolved,
          provider: current().modelProvider,
          ...(current().supportsReasoningEffort ? { reasoningEffort: current().reasoningEffort } : {}),
          fallbacks: fallbacks(current().resolved),
        }),
        tools: () => tools.list(),
        mode: () => current().approvals.mode,
      },
      background: true,
    });
    const session: AgentSession = new AgentSession({
      id: input.id,
      cwd: input.cwd,
      config,
      resolved,
      provider,
      tools,
      toolset,
      resolveToolset: () => forFrontEnd(resolveToolset(this.config.orDefaults(), this.config.env), input.canAskUser),
      mcp,
      systemPrompt: input.systemPrompt,
      ...(this.contextWindowLookup ? { contextWindowLookup: this.contextWindowLookup } : {}),
      ...(this.learnContextWindow ? { learnContextWindow: this.learnContextWindow } : {}),
      hermesHome: this.paths.home,
      recorder: new SessionRecorder(this.store, meta),
      ports: { sessionSearch: createSessionSearchPort(this.store, input.id), auxiliaryModel, delegate: delegation },
      delegation,
      checkpoints: new SessionCheckpoints({ hermesHome: this.paths.home, cwd: input.cwd, config }),
      fallbacks,
      ...(input.history ? { history: input.history } : {}),
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.costUsd ? { costUsd: input.costUsd } : {}),
      ...(input.reasoningEffort ? { reasoningEffort: input.reasoningEffort } : {}),
      ...(input.unusable ? { unusable: input.unusable } : {}),
      ...withReview(reviewSettings(config, this.config.env)),
      generateTitles: titleGenerationEnabled(config, this.config.env),
      // compression summaries go to auxiliary.compression when it names a model (else the session's model, as before)
      ...(config.auxiliary.compression
        ? { summarize: (messages, signal, options) => auxiliaryModel.complete("compression", messages, { signal, maxTokens: options.maxTokens }) }
        : {}),
      approvalSettings: {
        hermesHome: this.paths.home,
        config,
        persistAllowed: (command) => addCommandAllowlistEntry(this.paths.home, command),
        ...(config.approvals.mode === "smart" ? { guardian: createGuardian(auxiliaryModel, input.cwd) } : {}),
      },
    });
    // A restored conversation gets its todo list back from its last todo result (as Hermes does).
    if (input.history) restoreTodosFromHistory(session.history, session.toolState);
    return session;
  }

  /**
   * A session's system prompt, built once (SOUL.md, the skills index when its toolsets include
   * skill_view, the memory snapshot when they include memory, project context of `cwd`, environment).
   */
  private systemPrompt(config: HermesConfig, resolved: ResolvedProvider, cwd: string, startedAt: Date): Promise<string> {
    const tools = new Set(this.toolsetFor(config).tools.map((tool) => tool.name));
    const memory = memorySection(config, tools, this.paths.home);
    const skills = skillsSection(config, tools, { hermesHome: this.paths.home, cwd, env: this.config.env });
    return buildSessionSystemPrompt({
      soulFile: this.paths.soulFile,
      cwd,
      model: resolved.model,
      provider: resolved.provider,
      startedAt,
      contextWindow: sessionContextWindow(config, resolved.provider, resolved.model, this.contextWindowLookup),
      ...(memory ? { memory } : {}),
      ...(skills ? { skills } : {}),
    });
  }

  /**
   * Ahead of the first session (the warm-up after `initialize`): resolves `config`'s toolsets (kept
   * for this version of config.yaml, as a session would) and lists their tools' JSON schemas (the
   * built-in tools' are generated at build time; any other is derived once and cached), so the
   * first `session/new` finds both done. Throws what resolving throws.
   */
  warm(config: HermesConfig): void {
    new ToolRegistry(this.toolsetFor(config).tools).schemas();
  }

  /** The toolsets of `config`, resolved once per version of config.yaml (the system prompt and the session both ask). */
  private toolsetFor(config: HermesConfig): ResolvedToolset {
    let toolset = this.toolsets.get(config);
    if (!toolset) {
      toolset = resolveToolset(config, this.config.env);
      this.toolsets.set(config, toolset);
    }
    return toolset;
  }
}

/** `toolset` minus what the front end cannot serve: `clarify` needs an editor that shows questions. */
function forFrontEnd(toolset: ResolvedToolset, canAskUser: boolean): ResolvedToolset {
  if (canAskUser || !toolset.tools.some((tool) => tool.name === "clarify")) return toolset;
  return {
    ...toolset,
    tools: toolset.tools.filter((tool) => tool.name !== "clarify"),
    unavailable: [...toolset.unavailable, { tool: "clarify", reason: "the editor cannot show questions (ACP form elicitation)" }],
  };
}

function withReview(review: ReviewSettings | undefined): { review?: ReviewSettings } {
  return review ? { review } : {};
}

/** `cwd` in this machine's form (see `clientPath`); throws HermesError `invalid_params` unless it is an absolute path. */
function absoluteCwd(cwd: unknown): string {
  if (typeof cwd !== "string" || !isAbsoluteClientPath(cwd)) {
    throw new HermesError("invalid_params", `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  }
  return clientPath(cwd);
}
