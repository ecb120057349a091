/**
 * The pieces provider resolution (resolve.ts) is built from: an endpoint with its credential pool
 * before the model is chosen, the named endpoints of `providers:` and `custom_providers:`, the
 * generic path of the provider presets, and the checks and messages they share. Pure: no network,
 * no disk, no secret registration (resolve.ts registers what it hands out).
 */
import { homePaths } from "../config/paths.js";
import type { ProviderConfig, ProviderEntry } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import { apiModeForUrl, envKey, envValue, explicitApiMode, hostKey, hostOf, KEY_VARIABLES, type Key, providerForHost } from "./endpoint-hosts.js";
import { KIMI_CODE_BASE_URL, type ProviderPreset } from "./presets.js";
import type { ApiMode } from "./types.js";

/** The key sent to endpoints that need none (local servers). */
export const NO_KEY = "no-key-required";

export type Env = NodeJS.ProcessEnv;

export interface Context {
  config: ProviderConfig;
  env: Env;
  home: string;
}

/** An endpoint with its credentials, before the model is chosen. */
export interface Endpoint {
  provider: string;
  apiMode: ApiMode;
  /** `apiMode` came from the URL alone: the model may still ask for the Responses API (`apiModeFor`). */
  modeFromUrl: boolean;
  baseUrl: string;
  /** The first key of the pool, or NO_KEY. */
  apiKey: string;
  /** Every key, `apiKey` first; [] without a key. */
  apiKeys: string[];
  source: string[];
  /** Model to use when `model.default` is not set. */
  fallbackModel?: string;
  /** Models a `providers:` entry declares. */
  declaredModels?: string[];
  /** False when the endpoint is known not to answer `GET /models`. */
  listsModels?: boolean;
}

/** A credential pool and where it came from (never the values in `source`). */
export interface KeyPool {
  values: string[];
  source: string;
}

/** A named endpoint from `providers:` (its map key) or `custom_providers:` (its `name`). */
export interface NamedEntry {
  name: string;
  entry: ProviderEntry;
  /** `providers.<name>` or `custom_providers[<i>]`, for messages and sources. */
  setting: string;
}

/** Hermes' identity of a named endpoint: its name, lower case, spaces as dashes (`custom:<slug>` in model ids). */
export function customSlug(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, "-");
}

/**
 * The named endpoints, `providers:` first, then `custom_providers:` entries whose name no
 * `providers:` entry has (any case); entries with `enabled: false` are left out.
 */
export function namedEntries(config: ProviderConfig): NamedEntry[] {
  const result: NamedEntry[] = [];
  const taken = new Set<string>();
  for (const [name, entry] of Object.entries(config.providers)) {
    taken.add(customSlug(name));
    if (entry.enabled !== false) result.push({ name, entry, setting: `providers.${name}` });
  }
  config.custom_providers.forEach((entry, index) => {
    const slug = customSlug(entry.name);
    if (taken.has(slug)) return;
    taken.add(slug);
    if (entry.enabled !== false) result.push({ name: entry.name, entry, setting: `custom_providers[${index}] (${entry.name})` });
  });
  return result;
}

/** The named endpoint `requested` names: its name (exact, then any case), its slug, or `custom:<slug>`. */
export function findNamed(config: ProviderConfig, requested: string): NamedEntry | undefined {
  const entries = namedEntries(config);
  const trimmed = requested.trim();
  const exact = entries.find((named) => named.name === trimmed);
  if (exact) return exact;
  const wanted = customSlug(trimmed.replace(/^custom:/i, ""));
  return entries.find((named) => customSlug(named.name) === wanted);
}

/** A named endpoint: keys from api_key + api_keys, else every set env[key_env], else the host's variable; none for others. */
export function namedEndpoint(named: NamedEntry, env: Env): Endpoint {
  const { name, entry, setting } = named;
  const baseUrl = checkedUrl(entry.base_url, `${setting}.base_url`);
  const inline = uniqueKeys([entry.api_key, ...(entry.api_keys ?? [])]);
  const fromEnv = uniqueKeys(keyEnvNames(entry.key_env).map((variable) => envValue(env, variable)));
  const variables = keyEnvNames(entry.key_env).filter((variable) => envValue(env, variable));
  const host = hostKey(env, baseUrl);
  const pool: KeyPool | undefined =
    inline.length > 0
      ? { values: inline, source: `key: ${setting}.api_key${inline.length > 1 ? `s (${inline.length} keys)` : ""}` }
      : fromEnv.length > 0
        ? { values: fromEnv, source: `key: env ${variables.join(", ")}` }
        : host
          ? { values: [host.value], source: host.source }
          : undefined;
  const declared = [entry.model, ...(entry.models ?? [])].map((model) => model?.trim() ?? "").filter(Boolean);
  const explicit = explicitApiMode(entry.api_mode);
  return {
    ...withPool(pool),
    provider: name,
    apiMode: explicit ?? apiModeForUrl(baseUrl),
    modeFromUrl: !explicit,
    baseUrl,
    source: [`${setting} in config.yaml`, pool?.source ?? "key: none"],
    declaredModels: declared,
    ...(declared[0] ? { fallbackModel: declared[0] } : {}),
  };
}

/**
 * A preset provider on the generic path: its URL (`model.base_url` when it is the configured
 * provider, else the override variable's, else the preset's), keys from
 * `model.api_key` / `model.api_keys` (when `useModelKeys`) or the first of its variables that is
 * set, its wire API and default model. `sk-kimi-` keys on kimi-coding go to Kimi Code's endpoint
 * unless the URL is overridden. Throws `auth_required` when no key is found (unless the preset
 * needs none), `config_invalid` for an override that is not http(s).
 */
export function presetEndpoint(context: Context, preset: ProviderPreset, origin: string, useModelKeys: boolean): Endpoint {
  const { env, config } = context;
  const override = preset.baseUrlVariable ? envValue(env, preset.baseUrlVariable) : undefined;
  const fromBaseUrl = useModelKeys ? config.model.base_url : undefined;
  const urlSetting = fromBaseUrl ? "model.base_url" : override ? `env ${preset.baseUrlVariable}` : "default";
  let baseUrl = checkedUrl(fromBaseUrl ?? override ?? preset.baseUrl, urlSetting.replace(/^env /, ""));
  const pool = (useModelKeys ? configKeys(config) : undefined) ?? envPool(env, preset.keyVariables);
  if (!pool && !preset.keyOptional) throw missingKey(context, origin, variableList(preset.keyVariables));
  if (preset.id === "kimi-coding" && !override && pool?.values[0]?.startsWith("sk-kimi-")) baseUrl = KIMI_CODE_BASE_URL;
  const explicit = useModelKeys ? explicitApiMode(config.model.api_mode) : undefined;
  const apiMode = explicit ?? (baseUrl === preset.baseUrl ? preset.apiMode : apiModeForUrl(baseUrl));
  return {
    ...withPool(pool),
    provider: preset.id,
    apiMode,
    modeFromUrl: !explicit && apiMode === "chat_completions",
    baseUrl,
    source: [origin, ...(urlSetting === "default" ? [] : [`base_url: ${urlSetting}`]), pool?.source ?? "key: none"],
    listsModels: preset.listsModels,
    ...(preset.defaultModel ? { fallbackModel: preset.defaultModel } : {}),
  };
}

/** An endpoint at `url` (model.base_url, OPENAI_BASE_URL…): keys from model.api_key(s) → the host's variable → none. */
export function urlEndpoint(context: Context, url: string, urlSource: string, provider: string, origin: string, defaults: Readonly<Record<string, string>>): Endpoint {
  const baseUrl = checkedUrl(url, urlSource.replace(/^env /, ""));
  const host = hostKey(context.env, baseUrl);
  const pool = configKeys(context.config) ?? (host ? { values: [host.value], source: host.source } : undefined);
  const hostProvider = providerForHost(hostOf(baseUrl));
  if (!pool && hostProvider !== "custom") {
    throw missingKey(context, `${baseUrl} (${urlSource})`, KEY_VARIABLES[hostProvider]?.[0] ?? "an API key");
  }
  const fallback = hostProvider === provider ? defaults[provider] : undefined;
  const explicit = explicitApiMode(context.config.model.api_mode);
  return {
    ...withPool(pool),
    provider,
    apiMode: explicit ?? apiModeForUrl(baseUrl),
    modeFromUrl: !explicit,
    baseUrl,
    source: [origin, `base_url: ${urlSource}`, pool?.source ?? "key: none"],
    ...(fallback ? { fallbackModel: fallback } : {}),
  };
}

/** `model.api_key` then `model.api_keys` (the configured provider's pool); undefined when neither is set. */
export function configKeys(config: ProviderConfig): KeyPool | undefined {
  const values = uniqueKeys([config.model.api_key, ...(config.model.api_keys ?? [])]);
  if (values.length === 0) return undefined;
  const named = config.model.api_key?.trim() ? "model.api_key" : "model.api_keys";
  return { values, source: `key: ${named}${values.length > 1 ? ` (+${values.length - 1} in the pool)` : ""}` };
}

/** The first of `variables` set in `env`, as a one-key pool. */
export function envPool(env: Env, variables: readonly string[]): KeyPool | undefined {
  for (const variable of variables) {
    const key = envKey(env, variable);
    if (key) return { values: [key.value], source: key.source };
  }
  return undefined;
}

/** A single key as a pool. */
export function poolOf(key: Key | undefined): KeyPool | undefined {
  return key ? { values: [key.value], source: key.source } : undefined;
}

/** `apiKey` / `apiKeys` of an endpoint from its pool (NO_KEY and [] without one). */
export function withPool(pool: KeyPool | undefined): { apiKey: string; apiKeys: string[] } {
  return pool ? { apiKey: pool.values[0] ?? NO_KEY, apiKeys: pool.values } : { apiKey: NO_KEY, apiKeys: [] };
}

export function missingKey(context: Context, what: string, variable: string): HermesError {
  return new HermesError(
    "auth_required",
    `${what} needs ${variable}. Set it in ${homePaths(context.home).envFile} or the environment, or run \`hermes acp --setup\`.`,
  );
}

/** `A`, or `A (or B, C)`. */
export function variableList(variables: readonly string[]): string {
  const [first = "an API key", ...rest] = variables;
  return rest.length > 0 ? `${first} (or ${rest.join(", ")})` : first;
}

/** `url` without trailing slashes; throws `config_invalid` unless it is an http(s) URL. */
export function checkedUrl(url: string, setting: string): string {
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

/** Trimmed, non-empty, each once, in order. */
function uniqueKeys(values: (string | undefined)[]): string[] {
  return [...new Set(values.map((value) => value?.trim() ?? "").filter(Boolean))];
}
