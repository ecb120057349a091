import { hermesHome, homePaths } from "../config/paths.js";
import { registerSecret } from "../config/redact.js";
import type { HermesConfig, ProviderConfig } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import { apiModeFor, apiModeForUrl, envKey, envValue, explicitApiMode, hostOf, isOfficialOpenAiHost, OLLAMA_BASE_URL, OPENAI_BASE_URL, providerForHost } from "./endpoint-hosts.js";
import {
  checkedUrl,
  configKeys,
  type Context,
  customSlug,
  type Endpoint,
  type Env,
  envPool,
  findNamed,
  type KeyPool,
  missingKey,
  namedEndpoint,
  namedEntries,
  poolOf,
  presetEndpoint,
  urlEndpoint,
  variableList,
  withPool,
} from "./endpoints.js";
import { findPreset, PROVIDER_PRESETS, type ProviderPreset, SPECIAL_PRESETS } from "./presets.js";
import type { ApiMode, ResolvedProvider } from "./types.js";

export { ANTHROPIC_BASE_URL, NOUS_BASE_URL, OLLAMA_BASE_URL, OPENAI_BASE_URL, OPENROUTER_BASE_URL, vendorKeyName } from "./endpoint-hosts.js";
export { customSlug, keyEnvNames, NO_KEY } from "./endpoints.js";

/** Built-in provider ids `model.provider` may name, besides the presets and entries of `providers:` / `custom_providers:`. */
export const BUILTIN_PROVIDERS = ["auto", "openrouter", "openai", "anthropic", "nous", "custom", "ollama"] as const;
/** The model used when `model.default` is not set, per preset provider. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = Object.fromEntries(
  PROVIDER_PRESETS.flatMap((preset) => (preset.defaultModel ? [[preset.id, preset.defaultModel]] : [])),
);

/** A model on a provider, as a model picker or `/model provider:model` names it. */
export interface ModelTarget {
  /** A built-in or preset id or alias, a named entry's name or `custom:<name>` (any case). */
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
  /** False when the endpoint is known not to answer `GET /models` (the catalog does not ask it). */
  listsModels?: boolean;
}

/**
 * An endpoint that resolved except for its model: none is configured and it has no default.
 * `session/new` and `--check` ask `endpoint`'s model list (see `resolveWithDiscovery` in
 * model-discovery.ts) and call `resolve` with the model chosen; `message` is the error to give
 * when that is not possible.
 */
export interface ModelDiscovery {
  endpoint: ProviderEndpoint;
  message: string;
  resolve(model: string): ResolvedProvider;
}

export type ProviderResolution = { resolved: ResolvedProvider; discovery?: undefined } | { resolved?: undefined; discovery: ModelDiscovery };

/**
 * Decides endpoint, keys, model and wire API (Hermes' order, reference §7.2): a named endpoint
 * (`providers:` entry, else `custom_providers:` entry with that `name`; `custom:<name>` also
 * names it; `enabled: false` entries do not exist) → a built-in provider (openrouter, openai,
 * anthropic, nous, custom, ollama) → a preset (presets.ts; ids and aliases) → for `auto`:
 * `model.base_url`, then `OPENROUTER_API_KEY`, `OPENAI_API_KEY` / `OPENAI_BASE_URL`,
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_TOKEN`, `NOUS_API_KEY`, then the presets' key variables in
 * registry order. The requested provider is `model.provider`, or `HERMES_INFERENCE_PROVIDER` when
 * that is `auto`. `apiMode`: an entry's (or, for the configured provider, the model section's)
 * `api_mode`; else the preset's; else from the URL (`anthropic_messages` for Anthropic-style
 * endpoints, `responses` for api.x.ai, and on OpenAI's own hosts for models that need it: GPT-5,
 * codex, o1/o3/o4); else `chat_completions`.
 *
 * Keys: the configured provider takes `model.api_key` + `model.api_keys`; a named entry its
 * `api_key` + `api_keys`, else every set variable of `key_env`; all of them land in `apiKeys`
 * (first = `apiKey`) and are registered for redaction; `source` names only where they came from.
 *
 * `target` switches to another model and possibly another provider: on the configured provider it
 * keeps the configured endpoint and replaces only the model; on another provider it resolves that
 * provider as if `model.provider` named it, ignoring `model.base_url`, `model.api_key(s)` and
 * `model.api_mode` (they belong to the configured provider).
 *
 * Pure apart from registering the resolved keys for redaction; no network, no disk. Throws
 * HermesError `auth_required` (nothing usable configured, key or model missing, unsupported
 * provider; the message says what to set and where) or `config_invalid` (a base URL that is not
 * http(s)). `home` is only used in messages; it defaults to `hermesHome(env)`.
 */
export function resolveProvider(config: HermesConfig, env: Env = process.env, home: string = hermesHome(env), target?: ModelTarget): ResolvedProvider {
  const resolution = resolveProviderOrDiscovery(config, env, home, target);
  if (resolution.discovery) throw new HermesError("auth_required", resolution.discovery.message);
  return resolution.resolved;
}

/**
 * `resolveProvider`, except that an endpoint with no model configured and no default of its own
 * (a local server at `model.base_url`, `OPENAI_BASE_URL`, `custom`, `ollama`, an entry without
 * `model`) answers `discovery` instead of throwing, unless it is known not to list models.
 * Throws like `resolveProvider` otherwise.
 */
export function resolveProviderOrDiscovery(config: HermesConfig, env: Env = process.env, home: string = hermesHome(env), target?: ModelTarget): ProviderResolution {
  const effective = target ? retarget(config, env, target) : config;
  const endpoint = resolveEndpoint({ config: effective, env, home });
  const configured = effective.model.default?.trim();
  const model = configured || endpoint.fallbackModel;
  if (model) {
    const modelSource = configured ? (target ? "model: requested" : "model: model.default") : `model: default for ${endpoint.provider}`;
    return { resolved: finish(endpoint, model, modelSource) };
  }
  const message = `No model is configured for ${endpoint.provider} at ${endpoint.baseUrl}. Set model.default in ${homePaths(home).configFile}.`;
  if (endpoint.listsModels === false) throw new HermesError("auth_required", message);
  return {
    discovery: {
      endpoint: publicEndpoint(endpoint, []),
      message,
      resolve: (chosen) => finish(endpoint, chosen, `model: ${chosen} from ${endpoint.baseUrl}/models`),
    },
  };
}

/**
 * The provider id `resolveProvider` would use when an endpoint and its credentials are found
 * (a missing model does not matter here); undefined otherwise. Never throws.
 */
export function detectProvider(config: ProviderConfig, env: Env = process.env): string | undefined {
  return attempt(() => resolveEndpoint({ config, env, home: hermesHome(env) }))?.provider;
}

/**
 * Every spelling of a provider a `provider:model` value may start with: built-in and preset ids
 * and aliases, and the names of enabled named entries. (`custom:<name>:<model>` is handled by the
 * model switch.)
 */
export function knownProviderNames(config: HermesConfig): string[] {
  const presets = PROVIDER_PRESETS.flatMap((preset) => [preset.id, ...preset.aliases]);
  return [...new Set([...BUILTIN_PROVIDERS.filter((id) => id !== "auto"), ...presets, ...namedEntries(config).map((named) => named.name)])];
}

/** The names of the enabled named entries (`providers:` then `custom_providers:`). */
export function namedProviderNames(config: HermesConfig): string[] {
  return namedEntries(config).map((named) => named.name);
}

/**
 * Every endpoint usable right now, the configured one first: the configured provider, each
 * enabled named entry (`providers:`, then `custom_providers:`), and each preset whose key is in
 * the environment (OpenRouter, OpenAI, Anthropic, Nous, then the other presets in registry order).
 * A provider id is listed once. Declared models: for the configured endpoint `model.default`
 * (else its default) then an entry's `model` / `models`; for an entry its `model` then `models`;
 * for a preset its default model. Endpoints that cannot be resolved (no key, bad URL) are left
 * out. Never throws; no network, no disk.
 */
export function configuredEndpoints(config: HermesConfig, env: Env = process.env): ProviderEndpoint[] {
  const home = hermesHome(env);
  const result: ProviderEndpoint[] = [];
  const add = (endpoint: Endpoint | undefined, models: (string | undefined)[]): void => {
    if (!endpoint || result.some((known) => known.provider.toLowerCase() === endpoint.provider.toLowerCase())) return;
    const declared = [...new Set(models.map((model) => model?.trim() ?? "").filter(Boolean))];
    for (const key of endpoint.apiKeys) registerSecret(key);
    result.push(publicEndpoint(endpoint, declared));
  };
  const primary = attempt(() => resolveEndpoint({ config, env, home }));
  add(primary, [config.model.default?.trim() || primary?.fallbackModel, ...(primary?.declaredModels ?? [])]);
  for (const named of namedEntries(config)) {
    const endpoint = attempt(() => namedEndpoint(named, env));
    add(endpoint, [endpoint?.fallbackModel, ...(endpoint?.declaredModels ?? [])]);
  }
  for (const preset of PROVIDER_PRESETS) {
    if (!preset.keyVariables.some((variable) => envValue(env, variable))) continue;
    const endpoint = attempt(() => resolveEndpoint({ config: retarget(config, env, { provider: preset.id, model: "" }), env, home }));
    add(endpoint, [endpoint?.fallbackModel]);
  }
  return result;
}

/** The resolved provider for `endpoint` and `model`: the wire API settled, every key registered for redaction. */
function finish(endpoint: Endpoint, model: string, modelSource: string): ResolvedProvider {
  const apiMode = endpoint.modeFromUrl ? apiModeFor(endpoint.baseUrl, model) : endpoint.apiMode;
  registerSecret(endpoint.apiKey);
  for (const key of endpoint.apiKeys) registerSecret(key);
  return {
    provider: endpoint.provider,
    apiMode,
    baseUrl: endpoint.baseUrl,
    apiKey: endpoint.apiKey,
    ...(endpoint.apiKeys.length > 1 ? { apiKeys: [...endpoint.apiKeys] } : {}),
    model,
    source: [...endpoint.source, ...(apiMode === "responses" && apiMode !== endpoint.apiMode ? [`api_mode: responses for ${model}`] : []), modelSource].join("; "),
  };
}

function publicEndpoint(endpoint: Endpoint, models: string[]): ProviderEndpoint {
  const { provider, apiMode, baseUrl, apiKey } = endpoint;
  return { provider, apiMode, baseUrl, apiKey, models, ...(endpoint.listsModels === false ? { listsModels: false } : {}) };
}

/** The id `name` stands for: a named entry's name, a built-in or preset id, else `name` lower-cased. */
function canonicalProvider(config: HermesConfig, name: string): string {
  return findNamed(config, name)?.name.toLowerCase() ?? findPreset(name)?.id ?? name.trim().toLowerCase();
}

/** `config` with the model section pointed at `target` (see `resolveProvider`). */
function retarget(config: HermesConfig, env: Env, target: ModelTarget): HermesConfig {
  const provider = target.provider.trim();
  const model = target.model.trim() || undefined;
  const configured = detectProvider(config, env);
  if (configured !== undefined && canonicalProvider(config, configured) === canonicalProvider(config, provider)) {
    return { ...config, model: { ...config.model, default: model ?? config.model.default } };
  }
  const section = { ...config.model, provider, default: model };
  delete section.base_url;
  delete section.api_key;
  delete section.api_keys;
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
  const named = findNamed(config, requested);
  if (named) return namedEndpoint(named, env);
  if (/^custom:./i.test(requested)) {
    throw new HermesError("auth_required", `${origin} "${requested}" names no enabled entry of providers: or custom_providers: in ${homePaths(context.home).configFile}.`);
  }
  const lower = requested.toLowerCase();
  const preset = findPreset(lower);
  const id = preset?.id ?? lower;
  const base = `${origin} ${id}`;
  switch (id) {
    case "openrouter":
    case "anthropic":
    case "nous":
      return keyedBuiltin(context, presetFor(id), base, configKeys(config));
    case "openai":
      return openAiEndpoint(context, base);
    case "custom": {
      const fromConfig = config.model.base_url;
      const url = fromConfig ?? envValue(env, "CUSTOM_BASE_URL");
      if (!url) throw new HermesError("auth_required", `${base} needs model.base_url; set it in ${homePaths(context.home).configFile}.`);
      return urlEndpoint(context, url, fromConfig ? "model.base_url" : "env CUSTOM_BASE_URL", "custom", base, DEFAULT_MODELS);
    }
    case "ollama": {
      const url = config.model.base_url ?? envValue(env, "OLLAMA_BASE_URL") ?? OLLAMA_BASE_URL;
      const baseUrl = checkedUrl(url, "model.base_url");
      const pool = configKeys(config) ?? poolOf(envKey(env, "OLLAMA_API_KEY"));
      const source = [base, `base_url: ${url}`, pool?.source ?? "key: none"];
      return { ...withPool(pool), provider: "ollama", apiMode: "chat_completions", modeFromUrl: false, baseUrl, source };
    }
    case "auto":
      return autoEndpoint(context);
    default:
      if (preset) return presetEndpoint(context, preset, base, true);
      if (config.model.base_url) return urlEndpoint(context, config.model.base_url, "model.base_url", id, base, DEFAULT_MODELS);
      throw new HermesError(
        "auth_required",
        `${origin} "${requested}" is not supported by hermes-acp. Use one of ${[...BUILTIN_PROVIDERS, ...PROVIDER_PRESETS.filter((p) => !SPECIAL_PRESETS.has(p.id)).map((p) => p.id)].join(", ")}, ` +
          `a name listed under providers: or custom_providers: in ${homePaths(context.home).configFile}, or set model.base_url to an OpenAI-compatible endpoint.`,
      );
  }
}

function openAiEndpoint(context: Context, base: string): Endpoint {
  const { config, env } = context;
  const fromEnv = envValue(env, "OPENAI_BASE_URL");
  const urlSource = config.model.base_url ? "model.base_url" : fromEnv ? "env OPENAI_BASE_URL" : "default";
  const baseUrl = checkedUrl(config.model.base_url ?? fromEnv ?? OPENAI_BASE_URL, urlSource.replace(/^env /, ""));
  const official = isOfficialOpenAiHost(hostOf(baseUrl));
  const pool = configKeys(config) ?? poolOf(envKey(env, "OPENAI_API_KEY"));
  if (!pool && official) throw missingKey(context, base, "OPENAI_API_KEY");
  const explicit = explicitApiMode(config.model.api_mode);
  return {
    ...withPool(pool),
    provider: "openai",
    apiMode: explicit ?? apiModeForUrl(baseUrl),
    modeFromUrl: !explicit,
    baseUrl,
    source: [base, `base_url: ${urlSource}`, pool?.source ?? "key: none"],
    ...(official ? { fallbackModel: DEFAULT_MODELS.openai } : {}),
  };
}

function autoEndpoint(context: Context): Endpoint {
  const { config, env } = context;
  if (config.model.base_url) {
    const url = config.model.base_url;
    return urlEndpoint(context, url, "model.base_url", providerForHost(hostOf(checkedUrl(url, "model.base_url"))), "auto", DEFAULT_MODELS);
  }
  const openrouterKey = envKey(env, "OPENROUTER_API_KEY");
  if (openrouterKey) return keyedBuiltin(context, presetFor("openrouter"), "auto", undefined, "auto: env OPENROUTER_API_KEY");
  const openaiKey = envValue(env, "OPENAI_API_KEY");
  const openaiUrl = envValue(env, "OPENAI_BASE_URL");
  if (openaiKey) {
    const baseUrl = checkedUrl(openaiUrl ?? OPENAI_BASE_URL, "OPENAI_BASE_URL");
    const official = isOfficialOpenAiHost(hostOf(baseUrl));
    const source = ["auto: env OPENAI_API_KEY", `base_url: ${openaiUrl ? "env OPENAI_BASE_URL" : "default"}`];
    return {
      ...withPool({ values: [openaiKey], source: "key: env OPENAI_API_KEY" }),
      provider: "openai",
      apiMode: apiModeForUrl(baseUrl),
      modeFromUrl: true,
      baseUrl,
      source,
      ...(official ? { fallbackModel: DEFAULT_MODELS.openai } : {}),
    };
  }
  if (openaiUrl) return urlEndpoint(context, openaiUrl, "env OPENAI_BASE_URL", "custom", "auto", DEFAULT_MODELS);
  for (const id of ["anthropic", "nous"]) {
    const preset = presetFor(id);
    const pool = envPool(env, preset.keyVariables);
    if (pool) return keyedBuiltin(context, preset, "auto", undefined, `auto: ${pool.source.replace(/^key: /, "")}`);
  }
  for (const preset of PROVIDER_PRESETS) {
    if (SPECIAL_PRESETS.has(preset.id)) continue;
    const pool = envPool(env, preset.keyVariables);
    if (pool) return presetEndpoint(context, preset, `auto: ${pool.source.replace(/^key: /, "")}`, false);
  }
  throw new HermesError(
    "auth_required",
    `No model provider is configured. Run \`hermes acp --setup\`, or set OPENROUTER_API_KEY (for example in ${homePaths(context.home).envFile}).`,
  );
}

/**
 * openrouter / anthropic / nous: their URL (or override variable), keys from `pool` (model.api_key
 * and model.api_keys) else their first set variable. `autoSource` replaces the origin and key
 * source in `source` for auto-detection.
 */
function keyedBuiltin(context: Context, preset: ProviderPreset, base: string, pool: KeyPool | undefined, autoSource?: string): Endpoint {
  const variable = preset.baseUrlVariable;
  const baseUrl = checkedUrl((variable ? envValue(context.env, variable) : undefined) ?? preset.baseUrl, variable ?? "base_url");
  const keys = pool ?? envPool(context.env, preset.keyVariables);
  if (!keys) throw missingKey(context, base, variableList(preset.keyVariables));
  const source = autoSource ? [autoSource] : [base, keys.source];
  return { ...withPool(keys), provider: preset.id, apiMode: preset.apiMode, modeFromUrl: false, baseUrl, source, ...(preset.defaultModel ? { fallbackModel: preset.defaultModel } : {}) };
}

function presetFor(id: string): ProviderPreset {
  const preset = findPreset(id);
  if (!preset) throw new Error(`no preset ${id}`);
  return preset;
}

/** Hermes' slug spelling of a named endpoint's model id, `custom:<slug>:<model>`. */
export function customModelId(name: string, model: string): string {
  return `custom:${customSlug(name)}:${model}`;
}

function attempt<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}
