import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { markAgentCredentials } from "../config/agent-credentials.js";
import { tryLoadConfig, type LoadConfigResult } from "../config/load.js";
import { homePaths, type HomePaths } from "../config/paths.js";
import { forgetStoredCredentials, type ForgetReport } from "../config/forget-credentials.js";
import { addCommandAllowlistEntry } from "../config/write.js";
import { defaultConfig, type HermesConfig } from "../config/schema.js";
import { ModelCatalog, type CatalogEntry } from "../llm/catalog.js";
import { detectProvider, resolveProvider } from "../llm/resolve.js";
import type { ChatMessage, ModelRequest, Provider, ProviderEvent, ResolvedProvider } from "../llm/types.js";
import { errorMessage, HermesError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { log } from "../shared/logger.js";
import { ToolRegistry } from "../tools/registry.js";
import { hermesAcpTools } from "../tools/toolsets.js";
import { repairToolPairs } from "../agent/history-repair.js";
import type { ToolOutcome } from "../agent/loop.js";
import { StateStore } from "../store/state-store.js";
import type { SessionRecord } from "../store/types.js";
import { resolveMcpServers, type McpServerInput } from "./mcp/server-spec.js";
import { SessionMcp } from "./mcp/session-mcp.js";
import { afterLastReset } from "./history-reset.js";
import { keyHint } from "./key-hint.js";
import { SessionRecorder } from "./recorder.js";
import { createSessionSearchPort } from "./session-search-port.js";
import { resolveModelChoice } from "./model-switch.js";
import { AgentSession } from "./session.js";
import { sessionContextWindow, type ModelWindowLookup } from "./session-context.js";
import { buildSessionSystemPrompt, storedPromptFits } from "./session-prompt.js";

export interface TranscriptEntry {
  message: ChatMessage;
  toolOutcome?: ToolOutcome;
}

/** What a session is opened with besides its cwd. */
export interface SessionOpenOptions {
  /**
   * MCP servers the editor passed (already validated: unique names). They, and config.yaml's
   * `mcp_servers`, connect in the background; see SessionMcp.
   */
  mcpServers?: readonly McpServerInput[];
}

export interface RuntimeOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Context windows from the providers' model lists (a cached catalog), when known. */
  contextWindowLookup?: ModelWindowLookup;
}

/** How long after state.db opens its integrity check starts (off the start-up path; see store/integrity.ts). */
const INTEGRITY_CHECK_DELAY_MS = 3000;

/**
 * The composition root shared by the ACP adapter and the CLI: reads config, resolves the
 * provider and builds sessions. Does no I/O until first asked (start-up stays free).
 */
export class Runtime {
  readonly paths: HomePaths;
  /** state.db; opened on first use, never at start-up. */
  readonly store: StateStore;
  private readonly env: NodeJS.ProcessEnv;
  private providerCache: { key: string; provider: Provider } | undefined;
  private configCache: { stamp: string; result: LoadConfigResult } | undefined;
  /** The model picker's catalog; live model lists are fetched on first use only, then cached. */
  readonly models = new ModelCatalog();
  private readonly contextWindowLookup: ModelWindowLookup | undefined;

  constructor(options: RuntimeOptions) {
    this.paths = homePaths(options.home);
    this.store = new StateStore(this.paths.stateDb, { integrityCheckDelayMs: INTEGRITY_CHECK_DELAY_MS });
    this.env = options.env ?? process.env;
    this.contextWindowLookup = options.contextWindowLookup ?? ((provider, model) => this.models.contextLength(provider, model));
  }

  /**
   * config.yaml as it is now, parsed once per version of the file (a stat per call), so the
   * several reads of one request (initialize, session/new, the model picker) cost one parse.
   */
  private currentConfig(): LoadConfigResult {
    const stamp = fileStamp(this.paths.configFile);
    if (this.configCache?.stamp !== stamp) this.configCache = { stamp, result: tryLoadConfig(this.paths.home) };
    return this.configCache.result;
  }

  /** Current config.yaml, validated. Throws HermesError `config_invalid` naming the problem. */
  loadConfig(): HermesConfig {
    const loaded = this.currentConfig();
    if (!loaded.ok) throw loaded.error;
    return loaded.config;
  }

  /**
   * config.yaml when it is valid, else every default: for what needs no model (listing sessions,
   * page sizes), so a broken config.yaml fails only where a model is needed.
   */
  configOrDefaults(): HermesConfig {
    const loaded = this.currentConfig();
    return loaded.ok ? loaded.config : defaultConfig();
  }

  /** The configured provider id, or undefined when none is configured or config is broken. */
  configuredProvider(): string | undefined {
    const loaded = this.currentConfig();
    if (!loaded.ok) return undefined;
    return detectProvider(loaded.config, this.env);
  }

  /** Resolves the provider. Throws HermesError `config_invalid` or `auth_required`. */
  resolve(config: HermesConfig = this.loadConfig()): ResolvedProvider {
    return resolveProvider(config, this.env);
  }

  /**
   * `logout`: forgets the provider credentials Hermes stores, for this process too (see
   * `forgetStoredCredentials`). Sessions already open keep the provider they were opened with
   * until they close; new sessions need a provider again. Never throws.
   */
  forgetCredentials(): ForgetReport {
    this.providerCache = undefined;
    return forgetStoredCredentials(this.paths.home, this.env);
  }

  /** Why no provider can be used right now: the config error, or the "run --setup" advice. */
  authRequiredError(): HermesError {
    try {
      this.resolve();
    } catch (error) {
      if (error instanceof HermesError) return error;
    }
    return new HermesError("auth_required", "No model provider is configured. Run `hermes acp --setup` or set OPENROUTER_API_KEY.");
  }

  /**
   * A new session rooted at the absolute `cwd`. Nothing is written until its first message.
   * Throws HermesError `invalid_params` for a relative cwd, `config_invalid` for a broken
   * config.yaml, `auth_required` without a provider.
   */
  async createSession(cwd: string, options: { source?: string } & SessionOpenOptions = {}): Promise<AgentSession> {
    requireAbsolute(cwd);
    const config = this.loadConfig();
    const resolved = this.resolve(config);
    const id = newId();
    const systemPrompt = await this.systemPrompt(config, resolved, cwd, new Date());
    return this.assemble({ id, cwd, config, resolved, systemPrompt, source: options.source ?? "acp", mcpServers: options.mcpServers ?? [] });
  }

  /**
   * A stored session, ready to continue in `cwd` (default: where it ran): its history, title
   * and frozen system prompt (rebuilt when the model or provider changed since). Undefined when
   * no such session is stored. Throws like `createSession` for config and provider problems.
   */
  async restoreSession(id: string, cwd?: string, options: SessionOpenOptions = {}): Promise<AgentSession | undefined> {
    return (await this.restoreWithTranscript(id, cwd, options))?.session;
  }

  /** `restoreSession`, also answering the stored transcript (read once) for a replay. */
  async restoreWithTranscript(
    id: string,
    cwd?: string,
    options: SessionOpenOptions = {},
  ): Promise<{ session: AgentSession; transcript: TranscriptEntry[] } | undefined> {
    if (cwd !== undefined) requireAbsolute(cwd);
    const record = this.store.getSession(id);
    if (!record) return undefined;
    const transcript = this.transcript(id);
    const loaded = this.currentConfig();
    // A broken config.yaml still restores the stored conversation; prompting names the problem.
    if (!loaded.ok) return { session: await this.restoreDetached(record, cwd ?? record.cwd ?? process.cwd(), transcript, options), transcript };
    const config = loaded.config;
    const resolved = this.storedModel(config, record.provider, record.model) ?? this.resolve(config);
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
      parentSessionId: record.parentSessionId,
      mcpServers: options.mcpServers ?? [],
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
      const now = this.currentConfig();
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
      parentSessionId: record.parentSessionId,
      mcpServers: options.mcpServers ?? [],
    });
  }

  /** A model call through the provider config.yaml names now (for sessions restored while it was broken). */
  private async *streamWithCurrentConfig(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    let provider: Provider;
    try {
      const config = this.loadConfig();
      provider = await this.providerFor(this.resolve(config), config);
    } catch (error) {
      yield { type: "error", kind: "bad_request", message: errorMessage(error) };
      return;
    }
    yield* provider.stream(request, signal);
  }

  /** A copy of a stored session under a new id, in `cwd`, with `parent_session_id` set. */
  async forkSession(sourceId: string, cwd: string, options: SessionOpenOptions = {}): Promise<AgentSession | undefined> {
    requireAbsolute(cwd);
    if (!this.store.getSession(sourceId)) return undefined;
    const newIdValue = newId();
    this.store.forkSession(sourceId, { newId: newIdValue, cwd });
    return this.restoreSession(newIdValue, cwd, options);
  }

  /**
   * Connects MCP servers the editor names again for a session that stays live (a load or resume
   * of a session already open): servers it already has are kept, new ones start in the background.
   */
  addMcpServers(session: AgentSession, servers: readonly McpServerInput[]): void {
    if (!session.mcp || servers.length === 0) return;
    const loaded = this.currentConfig();
    session.mcp.start(this.mcpSpecs(servers, loaded.ok ? loaded.config : undefined));
  }

  /**
   * The stored conversation of a session with each tool result's outcome, for replaying it to an
   * editor and restoring it: what follows the last `/reset` marker. Empty when nothing is stored.
   */
  transcript(id: string): TranscriptEntry[] {
    const entries = this.store.loadMessageRows(id).map((row) => {
      const outcome = row.toolDetails as Partial<ToolOutcome> | undefined;
      const entry: TranscriptEntry = { message: row.message as ChatMessage };
      if (outcome && typeof outcome === "object" && typeof outcome.isError === "boolean") {
        entry.toolOutcome = { isError: outcome.isError, ...(outcome.details !== undefined ? { details: outcome.details } : {}) };
      }
      return entry;
    });
    // A process that died mid-tool leaves calls without results: repaired so the model accepts it.
    return repairToolPairs(afterLastReset(entries, (entry) => entry.message));
  }

  /**
   * The model picker's choices (`provider:model`, the configured default first): every configured
   * provider's declared models plus its live `/models` list, fetched now when not cached (each
   * within 1.5 s, once per process). Never called at start-up; never rejects (a broken
   * config.yaml gives []).
   */
  async catalog(): Promise<CatalogEntry[]> {
    const loaded = this.currentConfig();
    return loaded.ok ? this.models.list(loaded.config, this.env) : [];
  }

  /** The picker's choices known without I/O: declared models plus the lists fetched earlier. Never throws. */
  catalogSnapshot(): CatalogEntry[] {
    const loaded = this.currentConfig();
    return loaded.ok ? this.models.snapshot(loaded.config, this.env) : [];
  }

  /**
   * Resolves a picker value or `/model` argument (`provider:model`, or a model on `current`'s
   * provider); see `resolveModelChoice`. Throws HermesError `invalid_params` or `config_invalid`.
   */
  resolveModel(value: string, current?: ResolvedProvider): ResolvedProvider {
    return resolveModelChoice(this.loadConfig(), this.env, this.paths.home, value, current);
  }

  /**
   * The model a stored session last used (it may have been switched away from the configured
   * default), when it can still be reached; undefined sends the caller to the configured default.
   */
  private storedModel(config: HermesConfig, provider: string | null, model: string | null): ResolvedProvider | undefined {
    if (!provider || !model) return undefined;
    try {
      return resolveModelChoice(config, this.env, this.paths.home, `${provider}:${model}`);
    } catch {
      return undefined;
    }
  }

  /**
   * Switches `session` to `value` (see `resolveModel`) from its next turn: the provider for the
   * new endpoint, the system prompt rebuilt for the new model (SOUL.md, project context,
   * environment), state.db updated. Callers make sure no turn is running. Throws like
   * `resolveModel`, leaving the session unchanged.
   */
  async switchModel(session: AgentSession, value: string): Promise<ResolvedProvider> {
    const config = this.loadConfig();
    const resolved = resolveModelChoice(config, this.env, this.paths.home, value, session.resolved);
    const provider = await this.providerFor(resolved, config);
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
    parentSessionId?: string | null;
    mcpServers: readonly McpServerInput[];
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
    const tools = new ToolRegistry(hermesAcpTools());
    const provider = input.provider ?? (await this.providerFor(resolved, config));
    const mcp = new SessionMcp({ cwd: input.cwd, env: this.env, tools });
    mcp.start(this.mcpSpecs(input.mcpServers, config));
    return new AgentSession({
      id: input.id,
      cwd: input.cwd,
      config,
      resolved,
      provider,
      tools,
      mcp,
      systemPrompt: input.systemPrompt,
      ...(this.contextWindowLookup ? { contextWindowLookup: this.contextWindowLookup } : {}),
      hermesHome: this.paths.home,
      recorder: new SessionRecorder(this.store, meta),
      ports: { sessionSearch: createSessionSearchPort(this.store, input.id) },
      ...(input.history ? { history: input.history } : {}),
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.unusable ? { unusable: input.unusable } : {}),
      approvalSettings: {
        hermesHome: this.paths.home,
        config,
        persistAllowed: (command) => addCommandAllowlistEntry(this.paths.home, command),
      },
    });
  }

  /** A session's system prompt, built once (SOUL.md, project context of `cwd`, environment). */
  private systemPrompt(config: HermesConfig, resolved: ResolvedProvider, cwd: string, startedAt: Date): Promise<string> {
    return buildSessionSystemPrompt({
      soulFile: this.paths.soulFile,
      cwd,
      model: resolved.model,
      provider: resolved.provider,
      startedAt,
      contextWindow: sessionContextWindow(config, resolved.provider, resolved.model, this.contextWindowLookup),
    });
  }

  /** The editor's servers merged with config.yaml's; unusable config entries are logged and skipped. */
  private mcpSpecs(servers: readonly McpServerInput[], config: HermesConfig | undefined) {
    const { specs, problems } = resolveMcpServers(servers, config?.mcp_servers ?? {}, this.env);
    for (const problem of problems) log.warn(`config.yaml mcp_servers.${problem.name} skipped: ${problem.reason}`);
    return specs;
  }

  /** The wire provider for `resolved.apiMode` (openai-chat or anthropic), each module loaded on first use. */
  private async providerFor(resolved: ResolvedProvider, config: HermesConfig): Promise<Provider> {
    const connectSeconds = config.model.connect_timeout;
    const key = `${resolved.apiMode}\n${resolved.provider}\n${resolved.baseUrl}\n${resolved.apiKey}\n${connectSeconds ?? ""}`;
    if (this.providerCache?.key === key) return this.providerCache.provider;
    const options = {
      id: resolved.provider,
      baseUrl: resolved.baseUrl,
      apiKey: resolved.apiKey,
      ...(connectSeconds ? { connectTimeoutMs: connectSeconds * 1000 } : {}),
    };
    const provider =
      resolved.apiMode === "anthropic_messages"
        ? (await import("../llm/anthropic.js")).createAnthropicProvider(options)
        : (await import("../llm/openai-chat.js")).createOpenAiChatProvider(options);
    this.providerCache = { key, provider };
    return provider;
  }
}

/**
 * Marks the variables this session's provider keys come from (the resolved key's variable and
 * every `providers.<name>.key_env`) so commands the model runs never see them.
 */
function hideCredentialsFromCommands(config: HermesConfig, resolved: ResolvedProvider): void {
  const names: string[] = [];
  const hint = keyHint(resolved);
  if (hint && /^[A-Za-z_][A-Za-z0-9_]*$/.test(hint)) names.push(hint);
  for (const entry of Object.values(config.providers)) if (entry.key_env) names.push(entry.key_env);
  markAgentCredentials(names);
}

/** The file's identity for caching: changes whenever the file is written (or appears / disappears). */
function fileStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return "missing";
  }
}

function requireAbsolute(cwd: unknown): asserts cwd is string {
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    throw new HermesError("invalid_params", `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  }
}
