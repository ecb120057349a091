import { hermesHome, homePaths } from "../config/paths.js";
import { registerSecret } from "../config/redact.js";
import type { HermesConfig, ProviderEntry } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import {
  ANTHROPIC_BASE_URL,
  apiModeForUrl,
  envKey,
  envValue,
  explicitApiMode,
  firstEnvKey,
  hostKey,
  hostOf,
  KEY_VARIABLES,
  type Key,
  NOUS_BASE_URL,
  OLLAMA_BASE_URL,
  OPENAI_BASE_URL,
  OPENROUTER_BASE_URL,
  providerForHost,
} from "./endpoint-hosts.js";
import type { ApiMode, ResolvedProvider } from "./types.js";

export { ANTHROPIC_BASE_URL, NOUS_BASE_URL, OLLAMA_BASE_URL, OPENAI_BASE_URL, OPENROUTER_BASE_URL, vendorKeyName } from "./endpoint-hosts.js";

/** The key sent to endpoints that need none (local servers). */
export const NO_KEY = "no-key-required";
/** Built-in provider ids `model.provider` may name, besides entries of `providers:`. */
export const BUILTIN_PROVIDERS = ["auto", "openrouter", "openai", "anthropic", "nous", "custom", "ollama"] as const;
/** The model used when `model.default` is not set, per built-in provider. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = {
  openrouter: "anthropic/claude-sonnet-4",
  openai: "gpt-4.1",
  anthropic: "claude-sonnet-4-6",
  nous: "Hermes-4-70B",
};
/** Other spellings of built-in ids. */
const ALIASES: Readonly<Record<string, string>> = { claude: "anthropic", "nous-portal": "nous", nousresearch: "nous" };
/** Built-in providers a key in the environment makes available, in catalog order. */
const KEYED_BUILTINS = ["openrouter", "openai", "anthropic", "nous"] as const;

type Env = NodeJS.ProcessEnv;
/** An endpoint with its credentials, before the model is chosen. */
interface Endpoint {
  provider: string;
  apiMode: ApiMode;
  baseUrl: string;
  apiKey: string;
  source: string[];
  /** Model to use when `model.default` is not set. */
  fallbackModel?: string;
  /** Models a `providers:` entry declares. */
  declaredModels?: string[];
}
interface Context {
  config: HermesConfig;
  env: Env;
  home: string;
}

/** A model on a provider, as a model picker or `/model provider:model` names it. */
export interface ModelTarget {
  /** A built-in id or a `providers:` entry name (any case). */
  provider: string;
  /** The model; empty means the provider's default. */
  model: string;
}

/** An endpoint usable right now, with the models config declares for it (see `configuredEndpoints`). */
export interface ProviderEndpoint {
  provider: string;
  apiMode: ApiMode;
  baseUrl: string;
  /** Never log it. */
  apiKey: string;
  /** Declared models, the endpoint's default first; may be empty. */
  models: string[];
}

/**
 * Decides endpoint, key, model and wire API (Hermes' order, reference §7.2): a `providers:` entry
 * named by the requested provider → a built-in provider (openrouter, openai, anthropic, nous,
 * custom, ollama) → for `auto`: `model.base_url`, then `OPENROUTER_API_KEY`, `OPENAI_API_KEY` /
 * `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY` / `ANTHROPIC_TOKEN`, `NOUS_API_KEY`. The requested provider
 * is `model.provider`, or `HERMES_INFERENCE_PROVIDER` when that is `auto`. `apiMode` is
 * `anthropic_messages` for Anthropic and URLs whose path ends in `/anthropic`, or what an entry's
 * (or, for `model.base_url`, the model section's) `api_mode` says; else `chat_completions`.
 *
 * `target` switches to another model and possibly another provider: on the configured provider it
 * keeps the configured endpoint and replaces only the model; on another provider it resolves that
 * provider as if `model.provider` named it, ignoring `model.base_url`, `model.api_key` and
 * `model.api_mode` (they belong to the configured provider).
 *
 * Pure apart from registering the resolved key for redaction; no network, no disk.
 * Throws HermesError `auth_required` (nothing usable configured, key or model missing, unsupported
 * provider; the message says what to set and where) or `config_invalid` (a base URL that is not
 * http(s)). `home` is only used in messages; it defaults to `hermesHome(env)`.
 */
export function resolveProvider(
  config: HermesConfig,
  env: Env = process.env,
  home: string = hermesHome(env),
  target?: ModelTarget,
): ResolvedProvider {
  const effective = target ? retarget(config, env, target) : config;
  const endpoint = resolveEndpoint({ config: effective, env, home });
  const configured = effective.model.default?.trim();
  const model = configured || endpoint.fallbackModel;
  if (!model) {
    throw new HermesError(
      "auth_required",
      `No model is configured for ${endpoint.provider} at ${endpoint.baseUrl}. Set model.default in ${homePaths(home).configFile}.`,
    );
  }
  registerSecret(endpoint.apiKey);
  const modelSource = configured ? (target ? "model: requested" : "model: model.default") : `model: default for ${endpoint.provider}`;
  return {
    provider: endpoint.provider,
    apiMode: endpoint.apiMode,
    baseUrl: endpoint.baseUrl,
    apiKey: endpoint.apiKey,
    model,
    source: [...endpoint.source, modelSource].join("; "),
  };
}

/**
 * The provider id `resolveProvider` would use when an endpoint and its credentials are found
 * (a missing model does not matter here); undefined otherwise. Never throws.
 */
export function detectProvider(config: HermesConfig, env: Env = process.env): string | undefined {
  return attempt(() => resolveEndpoint({ config, env, home: hermesHome(env) }))?.provider;
}

/**
 * Every endpoint usable right now, the configured one first: the configured provider, each
 * `providers:` entry, and each built-in provider whose key is in the environment (OpenRouter,
 * OpenAI, Anthropic, Nous). A provider id is listed once. Declared models: for the configured
 * endpoint `model.default` (else its default) then an entry's `model` / `models`; for an entry its
 * `model` then `models`; for a built-in its default model. Endpoints that cannot be resolved (no
 * key, bad URL) are left out. Never throws; no network, no disk.
 */
export function configuredEndpoints(config: HermesConfig, env: Env = process.env): ProviderEndpoint[] {
  const home = hermesHome(env);
  const result: ProviderEndpoint[] = [];
  const add = (endpoint: Endpoint | undefined, models: (string | undefined)[]): void => {
    if (!endpoint || result.some((known) => known.provider.toLowerCase() === endpoint.provider.toLowerCase())) return;
    const declared = [...new Set(models.map((model) => model?.trim() ?? "").filter(Boolean))];
    registerSecret(endpoint.apiKey);
    const { provider, apiMode, baseUrl, apiKey } = endpoint;
    result.push({ provider, apiMode, baseUrl, apiKey, models: declared });
  };
  const primary = attempt(() => resolveEndpoint({ config, env, home }));
  add(primary, [config.model.default?.trim() || primary?.fallbackModel, ...(primary?.declaredModels ?? [])]);
  for (const [name, entry] of Object.entries(config.providers)) {
    const endpoint = attempt(() => namedEndpoint(name, entry, env));
    add(endpoint, [endpoint?.fallbackModel, ...(endpoint?.declaredModels ?? [])]);
  }
  for (const id of KEYED_BUILTINS) {
    if (!(KEY_VARIABLES[id] ?? []).some((variable) => envValue(env, variable))) continue;
    const endpoint = attempt(() => resolveEndpoint({ config: retarget(config, env, { provider: id, model: "" }), env, home }));
    add(endpoint, [endpoint?.fallbackModel]);
  }
  return result;
}

/** `config` with the model section pointed at `target` (see `resolveProvider`). */
function retarget(config: HermesConfig, env: Env, target: ModelTarget): HermesConfig {
  const provider = target.provider.trim();
  const model = target.model.trim() || undefined;
  const configured = detectProvider(config, env);
  if (configured !== undefined && configured.toLowerCase() === provider.toLowerCase()) {
    return { ...config, model: { ...config.model, default: model ?? config.model.default } };
  }
  const section = { ...config.model, provider, default: model };
  delete section.base_url;
  delete section.api_key;
  delete section.api_mode;
  return { ...config, model: section };
}

function resolveEndpoint(context: Context): Endpoint {
  const { config, env } = context;
  let requested = config.model.provider.trim();
  let origin = "model.provider";
  if (requested.toLowerCase() === "auto") {
    const fromEnv = envValue(env, "HERMES_INFERENCE_PROVIDER");
    if (fromEnv) [requested, origin] = [fromEnv, "HERMES_INFERENCE_PROVIDER"];
  }
  const named = findNamed(config.providers, requested);
  if (named) return namedEndpoint(named[0], named[1], env);
  const lower = requested.toLowerCase();
  const id = ALIASES[lower] ?? lower;
  const base = `${origin} ${id}`;
  switch (id) {
    case "openrouter": {
      const baseUrl = checkedUrl(envValue(env, "OPENROUTER_BASE_URL") ?? OPENROUTER_BASE_URL, "OPENROUTER_BASE_URL");
      const key = configKey(config) ?? envKey(env, "OPENROUTER_API_KEY");
      if (!key) throw missingKey(context, base, "OPENROUTER_API_KEY");
      return keyed("openrouter", baseUrl, "chat_completions", key, [base, key.source]);
    }
    case "openai": {
      const fromEnv = envValue(env, "OPENAI_BASE_URL");
      const urlSource = config.model.base_url ? "model.base_url" : fromEnv ? "env OPENAI_BASE_URL" : "default";
      const baseUrl = checkedUrl(config.model.base_url ?? fromEnv ?? OPENAI_BASE_URL, urlSource.replace(/^env /, ""));
      const official = hostOf(baseUrl) === "api.openai.com";
      const key = configKey(config) ?? envKey(env, "OPENAI_API_KEY");
      if (!key && official) throw missingKey(context, base, "OPENAI_API_KEY");
      return {
        provider: "openai",
        apiMode: modeFor(config, baseUrl),
        baseUrl,
        apiKey: key?.value ?? NO_KEY,
        source: [base, `base_url: ${urlSource}`, key?.source ?? "key: none"],
        ...(official ? { fallbackModel: DEFAULT_MODELS.openai } : {}),
      };
    }
    case "anthropic": {
      const baseUrl = checkedUrl(envValue(env, "ANTHROPIC_BASE_URL") ?? ANTHROPIC_BASE_URL, "ANTHROPIC_BASE_URL");
      const key = configKey(config) ?? firstEnvKey(env, KEY_VARIABLES.anthropic ?? []);
      if (!key) throw missingKey(context, base, "ANTHROPIC_API_KEY (or ANTHROPIC_TOKEN)");
      return keyed("anthropic", baseUrl, "anthropic_messages", key, [base, key.source]);
    }
    case "nous": {
      const baseUrl = checkedUrl(envValue(env, "NOUS_BASE_URL") ?? NOUS_BASE_URL, "NOUS_BASE_URL");
      const key = configKey(config) ?? envKey(env, "NOUS_API_KEY");
      if (!key) throw missingKey(context, base, "NOUS_API_KEY");
      return keyed("nous", baseUrl, "chat_completions", key, [base, key.source]);
    }
    case "custom": {
      const fromConfig = config.model.base_url;
      const url = fromConfig ?? envValue(env, "CUSTOM_BASE_URL");
      if (!url) {
        throw new HermesError("auth_required", `${base} needs model.base_url; set it in ${homePaths(context.home).configFile}.`);
      }
      return urlEndpoint(context, url, fromConfig ? "model.base_url" : "env CUSTOM_BASE_URL", "custom", base);
    }
    case "ollama": {
      const url = config.model.base_url ?? envValue(env, "OLLAMA_BASE_URL") ?? OLLAMA_BASE_URL;
      const baseUrl = checkedUrl(url, "model.base_url");
      const key = configKey(config) ?? envKey(env, "OLLAMA_API_KEY");
      const source = [base, `base_url: ${url}`, key?.source ?? "key: none"];
      return { provider: "ollama", apiMode: "chat_completions", baseUrl, apiKey: key?.value ?? NO_KEY, source };
    }
    case "auto":
      return autoEndpoint(context);
    default:
      if (config.model.base_url) return urlEndpoint(context, config.model.base_url, "model.base_url", id, base);
      throw new HermesError(
        "auth_required",
        `${origin} "${requested}" is not supported by hermes-acp. Use one of ${BUILTIN_PROVIDERS.join(", ")}, ` +
          `a name listed under providers: in ${homePaths(context.home).configFile}, or set model.base_url to an OpenAI-compatible endpoint.`,
      );
  }
}

function autoEndpoint(context: Context): Endpoint {
  const { config, env } = context;
  if (config.model.base_url) {
    const url = config.model.base_url;
    return urlEndpoint(context, url, "model.base_url", providerForHost(hostOf(checkedUrl(url, "model.base_url"))), "auto");
  }
  const openrouterKey = envKey(env, "OPENROUTER_API_KEY");
  if (openrouterKey) {
    const baseUrl = checkedUrl(envValue(env, "OPENROUTER_BASE_URL") ?? OPENROUTER_BASE_URL, "OPENROUTER_BASE_URL");
    return keyed("openrouter", baseUrl, "chat_completions", openrouterKey, ["auto: env OPENROUTER_API_KEY"]);
  }
  const openaiKey = envValue(env, "OPENAI_API_KEY");
  const openaiUrl = envValue(env, "OPENAI_BASE_URL");
  if (openaiKey) {
    const baseUrl = checkedUrl(openaiUrl ?? OPENAI_BASE_URL, "OPENAI_BASE_URL");
    const official = hostOf(baseUrl) === "api.openai.com";
    const source = ["auto: env OPENAI_API_KEY", `base_url: ${openaiUrl ? "env OPENAI_BASE_URL" : "default"}`];
    return {
      provider: "openai",
      apiMode: apiModeForUrl(baseUrl),
      baseUrl,
      apiKey: openaiKey,
      source,
      ...(official ? { fallbackModel: DEFAULT_MODELS.openai } : {}),
    };
  }
  if (openaiUrl) return urlEndpoint(context, openaiUrl, "env OPENAI_BASE_URL", "custom", "auto");
  const anthropicKey = firstEnvKey(env, KEY_VARIABLES.anthropic ?? []);
  if (anthropicKey) {
    const baseUrl = checkedUrl(envValue(env, "ANTHROPIC_BASE_URL") ?? ANTHROPIC_BASE_URL, "ANTHROPIC_BASE_URL");
    return keyed("anthropic", baseUrl, "anthropic_messages", anthropicKey, [`auto: ${anthropicKey.source.replace(/^key: /, "")}`]);
  }
  const nousKey = envKey(env, "NOUS_API_KEY");
  if (nousKey) {
    const baseUrl = checkedUrl(envValue(env, "NOUS_BASE_URL") ?? NOUS_BASE_URL, "NOUS_BASE_URL");
    return keyed("nous", baseUrl, "chat_completions", nousKey, ["auto: env NOUS_API_KEY"]);
  }
  throw new HermesError(
    "auth_required",
    `No model provider is configured. Run \`hermes acp --setup\`, or set OPENROUTER_API_KEY (for example in ${homePaths(context.home).envFile}).`,
  );
}

/** A built-in provider with its key and default model. */
function keyed(provider: string, baseUrl: string, apiMode: ApiMode, key: Key, source: string[]): Endpoint {
  const fallbackModel = DEFAULT_MODELS[provider];
  return { provider, apiMode, baseUrl, apiKey: key.value, source, ...(fallbackModel ? { fallbackModel } : {}) };
}

/** A `providers:` entry: key from its api_key → env[key_env] → the host's conventional variable → none. */
function namedEndpoint(name: string, entry: ProviderEntry, env: Env): Endpoint {
  const baseUrl = checkedUrl(entry.base_url, `providers.${name}.base_url`);
  const key =
    (entry.api_key ? { value: entry.api_key, source: `key: providers.${name}.api_key` } : undefined) ??
    keyEnvNames(entry.key_env).map((name) => envKey(env, name)).find((key) => key !== undefined) ??
    hostKey(env, baseUrl);
  const declared = [entry.model, ...(entry.models ?? [])].map((model) => model?.trim() ?? "").filter(Boolean);
  const fallback = declared[0];
  return {
    provider: name,
    apiMode: explicitApiMode(entry.api_mode) ?? apiModeForUrl(baseUrl),
    baseUrl,
    apiKey: key?.value ?? NO_KEY,
    source: [`providers.${name} in config.yaml`, key?.source ?? "key: none"],
    declaredModels: declared,
    ...(fallback ? { fallbackModel: fallback } : {}),
  };
}

/** An endpoint at `url`: key from model.api_key → the host's conventional variable → none. */
function urlEndpoint(context: Context, url: string, urlSource: string, provider: string, origin: string): Endpoint {
  const baseUrl = checkedUrl(url, urlSource.replace(/^env /, ""));
  const key = configKey(context.config) ?? hostKey(context.env, baseUrl);
  const hostProvider = providerForHost(hostOf(baseUrl));
  if (!key && hostProvider !== "custom") {
    throw missingKey(context, `${baseUrl} (${urlSource})`, KEY_VARIABLES[hostProvider]?.[0] ?? "an API key");
  }
  const fallback = hostProvider === provider ? DEFAULT_MODELS[provider] : undefined;
  return {
    provider,
    apiMode: modeFor(context.config, baseUrl),
    baseUrl,
    apiKey: key?.value ?? NO_KEY,
    source: [origin, `base_url: ${urlSource}`, key?.source ?? "key: none"],
    ...(fallback ? { fallbackModel: fallback } : {}),
  };
}

/** `model.api_mode` when it names a supported mode, else what the URL says. */
function modeFor(config: HermesConfig, baseUrl: string): ApiMode {
  return explicitApiMode(config.model.api_mode) ?? apiModeForUrl(baseUrl);
}

function configKey(config: HermesConfig): Key | undefined {
  const value = config.model.api_key?.trim();
  return value ? { value, source: "key: model.api_key" } : undefined;
}

function findNamed(providers: HermesConfig["providers"], requested: string): [string, ProviderEntry] | undefined {
  const exact = providers[requested];
  if (exact) return [requested, exact];
  const lower = requested.toLowerCase();
  return Object.entries(providers).find(([name]) => name.toLowerCase() === lower);
}

function missingKey(context: Context, what: string, variable: string): HermesError {
  return new HermesError(
    "auth_required",
    `${what} needs ${variable}. Set it in ${homePaths(context.home).envFile} or the environment, or run \`hermes acp --setup\`.`,
  );
}

/** `url` without trailing slashes; throws `config_invalid` unless it is an http(s) URL. */
function checkedUrl(url: string, setting: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  let parsed: URL | undefined;
  try {
    parsed = new URL(trimmed);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new HermesError("config_invalid", `${setting} is not an http(s) URL: ${JSON.stringify(url)}`);
  }
  return trimmed;
}

/** `key_env` as a list of variable names (one name, several, or none). */
export function keyEnvNames(keyEnv: ProviderEntry["key_env"]): string[] {
  return keyEnv === undefined ? [] : Array.isArray(keyEnv) ? keyEnv : [keyEnv];
}

function attempt<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}
