import { readFile } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { tryLoadConfig } from "../config/load.js";
import { homePaths, type HomePaths } from "../config/paths.js";
import { addCommandAllowlistEntry } from "../config/write.js";
import type { HermesConfig } from "../config/schema.js";
import { detectProvider, resolveProvider } from "../llm/resolve.js";
import type { Provider, ResolvedProvider } from "../llm/types.js";
import { HermesError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { ToolRegistry } from "../tools/registry.js";
import { hermesAcpTools } from "../tools/toolsets.js";
import { AgentSession } from "./session.js";

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
  private readonly env: NodeJS.ProcessEnv;
  private providerCache: { key: string; provider: Provider } | undefined;

  constructor(options: RuntimeOptions) {
    this.paths = homePaths(options.home);
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
   * A new session rooted at the absolute `cwd`. Throws HermesError `invalid_params` for a
   * relative cwd, `config_invalid` for a broken config.yaml, `auth_required` without a provider.
   */
  async createSession(cwd: string): Promise<AgentSession> {
    if (typeof cwd !== "string" || !isAbsolute(cwd)) {
      throw new HermesError("invalid_params", `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
    }
    const config = this.loadConfig();
    const resolved = this.resolve(config);
    const identity = await readOptional(this.paths.soulFile);
    return new AgentSession({
      id: newId(),
      cwd,
      config,
      resolved,
      provider: await this.providerFor(resolved),
      tools: new ToolRegistry(hermesAcpTools()),
      ...(identity ? { identity } : {}),
      createdAt: new Date(),
      hermesHome: this.paths.home,
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

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}
