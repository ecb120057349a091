import { statSync } from "node:fs";
import { markAgentCredentials } from "../config/agent-credentials.js";
import { forgetStoredCredentials, type ForgetReport } from "../config/forget-credentials.js";
import { tryLoadConfig, tryLoadProviderConfig, type LoadConfigResult } from "../config/load.js";
import type { HomePaths } from "../config/paths.js";
import { defaultConfig, type HermesConfig } from "../config/schema.js";
import { createCredentialPool } from "../llm/credential-pool.js";
import type { ModelCatalog } from "../llm/catalog.js";
import { resolveWithDiscovery, type DiscoveredProvider } from "../llm/model-discovery.js";
import { detectProvider, keyEnvNames, resolveProvider } from "../llm/resolve.js";
import type { Provider, ResolvedProvider } from "../llm/types.js";
import { HermesError } from "../shared/errors.js";
import { keyHint } from "./key-hint.js";
import { resolveModelChoice } from "./model-switch.js";

/**
 * config.yaml, the provider it names, and the credentials behind it. Reads nothing until asked;
 * the file is parsed once per version (a stat per call), so the several reads of one request
 * cost one parse. Wire providers are built on first use and reused while their settings hold.
 */
export class ConfigSource {
  private cache: { stamp: string; result: LoadConfigResult } | undefined;
  private providerOnly: { stamp: string; result: ReturnType<typeof tryLoadProviderConfig> } | undefined;
  private providerCache: { key: string; provider: Provider } | undefined;

  constructor(
    private readonly paths: HomePaths,
    readonly env: NodeJS.ProcessEnv,
    /** Where a session without a configured model asks the endpoint's model list (see `resolveForSession`). */
    private readonly catalog?: ModelCatalog,
  ) {}

  /** config.yaml as it is now: the config, or the error naming what is wrong. Never throws. */
  current(): LoadConfigResult {
    const stamp = fileStamp(this.paths.configFile);
    if (this.cache?.stamp !== stamp) this.cache = { stamp, result: tryLoadConfig(this.paths.home) };
    return this.cache.result;
  }

  /** Current config.yaml, validated. Throws HermesError `config_invalid` naming the problem. */
  load(): HermesConfig {
    const loaded = this.current();
    if (!loaded.ok) throw loaded.error;
    return loaded.config;
  }

  /**
   * config.yaml when it is valid, else every default: for what needs no model (listing sessions,
   * page sizes), so a broken config.yaml fails only where a model is needed.
   */
  orDefaults(): HermesConfig {
    const loaded = this.current();
    return loaded.ok ? loaded.config : defaultConfig();
  }

  /**
   * The configured provider id, or undefined when none is configured or the keys that decide it
   * (`model`, `providers`, `custom_providers`) are broken. Read from those keys alone, as
   * `initialize` reads them before the runtime exists, so the auth methods it advertises and
   * `authenticate` agree however the rest of config.yaml is; a problem elsewhere surfaces where
   * the whole file is needed (session/new).
   */
  configuredProvider(): string | undefined {
    const stamp = fileStamp(this.paths.configFile);
    if (this.providerOnly?.stamp !== stamp) this.providerOnly = { stamp, result: tryLoadProviderConfig(this.paths.home) };
    const loaded = this.providerOnly.result;
    return loaded.ok ? detectProvider(loaded.config, this.env) : undefined;
  }

  /** Resolves the provider. Throws HermesError `config_invalid` or `auth_required`. */
  resolve(config: HermesConfig = this.load()): ResolvedProvider {
    return resolveProvider(config, this.env);
  }

  /**
   * `resolve` for a new session: when config names an endpoint but no model, the endpoint's model
   * list decides (its only or first model; `notice` says so). Rejects with HermesError
   * `config_invalid` or `auth_required` (naming the `/models` URL when the list is empty or
   * unreachable). Without a catalog it is `resolve`.
   */
  async resolveForSession(config: HermesConfig = this.load()): Promise<DiscoveredProvider> {
    if (!this.catalog) return { resolved: this.resolve(config) };
    return resolveWithDiscovery(config, this.env, this.paths.home, this.catalog);
  }

  /**
   * Resolves a picker value or `/model` argument (`provider:model`, or a model on `current`'s
   * provider); see `resolveModelChoice`. Throws HermesError `invalid_params` or `config_invalid`.
   */
  resolveModel(value: string, current?: ResolvedProvider, config: HermesConfig = this.load()): ResolvedProvider {
    return resolveModelChoice(config, this.env, this.paths.home, value, current);
  }

  /**
   * The model a stored session last used (it may have been switched away from the configured
   * default), when it can still be reached; undefined sends the caller to the configured default.
   */
  storedModel(config: HermesConfig, provider: string | null, model: string | null): ResolvedProvider | undefined {
    if (!provider || !model) return undefined;
    try {
      return this.resolveModel(`${provider}:${model}`, undefined, config);
    } catch {
      return undefined;
    }
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
   * `logout`: forgets the provider credentials Hermes stores, for this process too (see
   * `forgetStoredCredentials`). Sessions already open keep the provider they were opened with
   * until they close; new sessions need a provider again. Never throws.
   */
  forgetCredentials(): ForgetReport {
    this.providerCache = undefined;
    return forgetStoredCredentials(this.paths.home, this.env);
  }

  /**
   * The wire provider for `resolved.apiMode` (openai-chat, openai-responses or anthropic), each module
   * loaded on first use; a credential pool (`resolved.apiKeys` with more than one key) gets
   * `createCredentialPool` over them. Reused while endpoint, every key and the connect timeout hold.
   */
  async provider(resolved: ResolvedProvider, config: HermesConfig): Promise<Provider> {
    const connectSeconds = config.model.connect_timeout;
    const keys = [...new Set([resolved.apiKey, ...(resolved.apiKeys ?? [])])];
    const key = `${resolved.apiMode}\n${resolved.provider}\n${resolved.baseUrl}\n${keys.join("\n")}\n${connectSeconds ?? ""}`;
    if (this.providerCache?.key === key) return this.providerCache.provider;
    // A credential pool (more than one key): one wire provider per key, each built on the key's first use.
    const provider =
      keys.length > 1
        ? createCredentialPool({ id: resolved.provider, keys, create: (apiKey) => this.wireProvider(resolved, apiKey, connectSeconds) })
        : await this.wireProvider(resolved, resolved.apiKey, connectSeconds);
    this.providerCache = { key, provider };
    return provider;
  }

  /** One wire provider for `resolved`'s API mode, sending `apiKey`. */
  private async wireProvider(resolved: ResolvedProvider, apiKey: string, connectSeconds: number | undefined): Promise<Provider> {
    const options = {
      id: resolved.provider,
      baseUrl: resolved.baseUrl,
      apiKey,
      ...(connectSeconds ? { connectTimeoutMs: connectSeconds * 1000 } : {}),
    };
    const provider =
      resolved.apiMode === "anthropic_messages"
        ? (await import("../llm/anthropic.js")).createAnthropicProvider(options)
        : resolved.apiMode === "responses"
          ? (await import("../llm/openai-responses.js")).createOpenAiResponsesProvider(options)
          : (await import("../llm/openai-chat.js")).createOpenAiChatProvider(options);
    return provider;
  }
}

/**
 * Marks the variables this session's provider keys come from (the resolved key's variable and
 * every `providers.<name>.key_env`) so commands the model runs never see them.
 */
export function hideCredentialsFromCommands(config: HermesConfig, resolved: ResolvedProvider): void {
  const names: string[] = [];
  const hint = keyHint(resolved);
  if (hint && /^[A-Za-z_][A-Za-z0-9_]*$/.test(hint)) names.push(hint);
  for (const entry of [...Object.values(config.providers), ...config.custom_providers]) names.push(...keyEnvNames(entry.key_env));
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
