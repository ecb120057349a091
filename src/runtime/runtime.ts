import { readFile } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { tryLoadConfig } from "../config/load.js";
import { homePaths, type HomePaths } from "../config/paths.js";
import { addCommandAllowlistEntry } from "../config/write.js";
import type { HermesConfig } from "../config/schema.js";
import { detectProvider, resolveProvider } from "../llm/resolve.js";
import type { ChatMessage, Provider, ResolvedProvider } from "../llm/types.js";
import { HermesError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { ToolRegistry } from "../tools/registry.js";
import { hermesAcpTools } from "../tools/toolsets.js";
import type { ToolOutcome } from "../agent/loop.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { StateStore } from "../store/state-store.js";
import { SessionRecorder } from "./recorder.js";
import { createSessionSearchPort } from "./session-search-port.js";
import { AgentSession } from "./session.js";

export interface TranscriptEntry {
  message: ChatMessage;
  toolOutcome?: ToolOutcome;
}

export interface RuntimeOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
}

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

  constructor(options: RuntimeOptions) {
    this.paths = homePaths(options.home);
    this.store = new StateStore(this.paths.stateDb);
    this.env = options.env ?? process.env;
  }

  /** Current config.yaml, validated. Throws HermesError `config_invalid` naming the problem. */
  loadConfig(): HermesConfig {
    const loaded = tryLoadConfig(this.paths.home);
    if (!loaded.ok) throw loaded.error;
    return loaded.config;
  }

  /** The configured provider id, or undefined when none is configured or config is broken. */
  configuredProvider(): string | undefined {
    const loaded = tryLoadConfig(this.paths.home);
    if (!loaded.ok) return undefined;
    return detectProvider(loaded.config, this.env);
  }

  /** Resolves the provider. Throws HermesError `config_invalid` or `auth_required`. */
  resolve(config: HermesConfig = this.loadConfig()): ResolvedProvider {
    return resolveProvider(config, this.env);
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
  async createSession(cwd: string, options: { source?: string } = {}): Promise<AgentSession> {
    requireAbsolute(cwd);
    const config = this.loadConfig();
    const resolved = this.resolve(config);
    const id = newId();
    const identity = await readOptional(this.paths.soulFile);
    const systemPrompt = buildSystemPrompt({
      ...(identity ? { identity } : {}),
      cwd,
      model: resolved.model,
      provider: resolved.provider,
      startedAt: new Date(),
      platform: process.platform,
    });
    return this.assemble({ id, cwd, config, resolved, systemPrompt, source: options.source ?? "acp" });
  }

  /**
   * A stored session, ready to continue in `cwd` (default: where it ran): its history, title
   * and frozen system prompt (rebuilt when the model or provider changed since). Undefined when
   * no such session is stored. Throws like `createSession` for config and provider problems.
   */
  async restoreSession(id: string, cwd?: string): Promise<AgentSession | undefined> {
    return (await this.restoreWithTranscript(id, cwd))?.session;
  }

  /** `restoreSession`, also answering the stored transcript (read once) for a replay. */
  async restoreWithTranscript(id: string, cwd?: string): Promise<{ session: AgentSession; transcript: TranscriptEntry[] } | undefined> {
    if (cwd !== undefined) requireAbsolute(cwd);
    const record = this.store.getSession(id);
    if (!record) return undefined;
    const transcript = this.transcript(id);
    const config = this.loadConfig();
    const resolved = this.resolve(config);
    const sessionCwd = cwd ?? record.cwd ?? process.cwd();
    const stored = record.systemPrompt;
    const systemPrompt =
      stored && stored.includes(`Model: ${resolved.model}\n`) && stored.includes(`Provider: ${resolved.provider}`) && sessionCwd === record.cwd
        ? stored
        : buildSystemPrompt({
            ...(await readOptional(this.paths.soulFile).then((identity) => (identity ? { identity } : {}))),
            cwd: sessionCwd,
            model: resolved.model,
            provider: resolved.provider,
            startedAt: new Date(record.startedAt),
            platform: process.platform,
          });
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
    });
    return { session, transcript };
  }

  /** A copy of a stored session under a new id, in `cwd`, with `parent_session_id` set. */
  async forkSession(sourceId: string, cwd: string): Promise<AgentSession | undefined> {
    requireAbsolute(cwd);
    if (!this.store.getSession(sourceId)) return undefined;
    const newIdValue = newId();
    this.store.forkSession(sourceId, { newId: newIdValue, cwd });
    return this.restoreSession(newIdValue, cwd);
  }

  /**
   * The stored conversation of a session with each tool result's outcome, for replaying it to an
   * editor. Empty when nothing is stored.
   */
  transcript(id: string): TranscriptEntry[] {
    return this.store.loadMessageRows(id).map((row) => {
      const outcome = row.toolDetails as Partial<ToolOutcome> | undefined;
      const entry: TranscriptEntry = { message: row.message as ChatMessage };
      if (outcome && typeof outcome === "object" && typeof outcome.isError === "boolean") {
        entry.toolOutcome = { isError: outcome.isError, ...(outcome.details !== undefined ? { details: outcome.details } : {}) };
      }
      return entry;
    });
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
  }): Promise<AgentSession> {
    const { config, resolved } = input;
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
    return new AgentSession({
      id: input.id,
      cwd: input.cwd,
      config,
      resolved,
      provider: await this.providerFor(resolved),
      tools: new ToolRegistry(hermesAcpTools()),
      systemPrompt: input.systemPrompt,
      hermesHome: this.paths.home,
      recorder: new SessionRecorder(this.store, meta),
      ports: { sessionSearch: createSessionSearchPort(this.store, input.id) },
      ...(input.history ? { history: input.history } : {}),
      ...(input.title !== undefined ? { title: input.title } : {}),
      approvalSettings: {
        config: () => {
          const current = tryLoadConfig(this.paths.home);
          return current.ok ? current.config : config;
        },
        persistAllowed: (patternKey) => addCommandAllowlistEntry(this.paths.home, patternKey),
      },
    });
  }

  private async providerFor(resolved: ResolvedProvider): Promise<Provider> {
    const key = `${resolved.provider}\n${resolved.baseUrl}\n${resolved.apiKey}`;
    if (this.providerCache?.key === key) return this.providerCache.provider;
    const { createOpenAiChatProvider } = await import("../llm/openai-chat.js");
    const provider = createOpenAiChatProvider({ id: resolved.provider, baseUrl: resolved.baseUrl, apiKey: resolved.apiKey });
    this.providerCache = { key, provider };
    return provider;
  }
}

function requireAbsolute(cwd: unknown): asserts cwd is string {
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    throw new HermesError("invalid_params", `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}
