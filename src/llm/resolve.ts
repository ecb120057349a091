import { hermesHome, homePaths } from "../config/paths.js";
import { registerSecret } from "../config/redact.js";
import type { HermesConfig, ProviderEntry } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import type { ResolvedProvider } from "./types.js";

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
export const OLLAMA_BASE_URL = "http://localhost:11434/v1";
/** The key sent to endpoints that need none (local servers). */
export const NO_KEY = "no-key-required";
/** Built-in provider ids `model.provider` may name, besides entries of `providers:`. */
export const BUILTIN_PROVIDERS = ["auto", "openrouter", "openai", "custom", "ollama"] as const;
const DEFAULT_MODELS: Record<string, string> = { openrouter: "anthropic/claude-sonnet-4", openai: "gpt-4.1" };

type Env = NodeJS.ProcessEnv;
/** An endpoint with its credentials, before the model is chosen. */
interface Endpoint {
  provider: string;
  baseUrl: string;
  apiKey: string;
  source: string[];
  /** Model to use when `model.default` is not set. */
  fallbackModel?: string;
}
interface Context {
  config: HermesConfig;
  env: Env;
  home: string;
}

/**
 * Decides endpoint, key and model, following Hermes' order: a `providers:` entry named by the
 * requested provider → a built-in provider (openrouter, openai, custom, ollama) → for `auto`:
 * `model.base_url`, then `OPENROUTER_API_KEY`, then `OPENAI_API_KEY` / `OPENAI_BASE_URL`.
 * The requested provider is `model.provider`, or `HERMES_INFERENCE_PROVIDER` when that is `auto`.
 * Pure apart from registering the resolved key for redaction; no network, no disk.
 * Throws HermesError `auth_required` (nothing usable configured, key or model missing, unsupported
 * provider; the message says what to set and where) or `config_invalid` (a base URL that is not
 * http(s)). `home` is only used in messages; it defaults to `hermesHome(env)`.
 */
export function resolveProvider(config: HermesConfig, env: Env = process.env, home: string = hermesHome(env)): ResolvedProvider {
  const context: Context = { config, env, home };
  const endpoint = resolveEndpoint(context);
  const configured = config.model.default?.trim();
  const model = configured || endpoint.fallbackModel;
  if (!model) {
    throw new HermesError(
      "auth_required",
      `No model is configured for ${endpoint.provider} at ${endpoint.baseUrl}. Set model.default in ${homePaths(home).configFile}.`,
    );
  }
  registerSecret(endpoint.apiKey);
  const modelSource = configured ? "model: model.default" : `model: default for ${endpoint.provider}`;
  return {
    provider: endpoint.provider,
    apiMode: "chat_completions",
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
  try {
    return resolveEndpoint({ config, env, home: hermesHome(env) }).provider;
  } catch {
    return undefined;
  }
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
  if (named) return namedEndpoint(context, named[0], named[1]);
  const id = requested.toLowerCase();
  const base = `${origin} ${id}`;
  switch (id) {
    case "openrouter": {
      const baseUrl = checkedUrl(envValue(env, "OPENROUTER_BASE_URL") ?? OPENROUTER_BASE_URL, "OPENROUTER_BASE_URL");
      const key = configKey(config) ?? envKey(env, "OPENROUTER_API_KEY");
      if (!key) throw missingKey(context, base, "OPENROUTER_API_KEY");
      return { provider: "openrouter", baseUrl, apiKey: key.value, source: [base, key.source], fallbackModel: DEFAULT_MODELS.openrouter };
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
        baseUrl,
        apiKey: key?.value ?? NO_KEY,
        source: [base, `base_url: ${urlSource}`, key?.source ?? "key: none"],
        ...(official ? { fallbackModel: DEFAULT_MODELS.openai } : {}),
      };
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
      return { provider: "ollama", baseUrl, apiKey: key?.value ?? NO_KEY, source: [base, `base_url: ${url}`, key?.source ?? "key: none"] };
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
  const openrouterKey = envValue(env, "OPENROUTER_API_KEY");
  if (openrouterKey) {
    const baseUrl = checkedUrl(envValue(env, "OPENROUTER_BASE_URL") ?? OPENROUTER_BASE_URL, "OPENROUTER_BASE_URL");
    return { provider: "openrouter", baseUrl, apiKey: openrouterKey, source: ["auto: env OPENROUTER_API_KEY"], fallbackModel: DEFAULT_MODELS.openrouter };
  }
  const openaiKey = envValue(env, "OPENAI_API_KEY");
  const openaiUrl = envValue(env, "OPENAI_BASE_URL");
  if (openaiKey) {
    const baseUrl = checkedUrl(openaiUrl ?? OPENAI_BASE_URL, "OPENAI_BASE_URL");
    const official = hostOf(baseUrl) === "api.openai.com";
    const source = ["auto: env OPENAI_API_KEY", `base_url: ${openaiUrl ? "env OPENAI_BASE_URL" : "default"}`];
    return { provider: "openai", baseUrl, apiKey: openaiKey, source, ...(official ? { fallbackModel: DEFAULT_MODELS.openai } : {}) };
  }
  if (openaiUrl) return urlEndpoint(context, openaiUrl, "env OPENAI_BASE_URL", "custom", "auto");
  throw new HermesError(
    "auth_required",
    `No model provider is configured. Run \`hermes acp --setup\`, or set OPENROUTER_API_KEY (for example in ${homePaths(context.home).envFile}).`,
  );
}

/** A `providers:` entry: key from its api_key → env[key_env] → the host's conventional variable → none. */
function namedEndpoint(context: Context, name: string, entry: ProviderEntry): Endpoint {
  const baseUrl = checkedUrl(entry.base_url, `providers.${name}.base_url`);
  const key =
    (entry.api_key ? { value: entry.api_key, source: `key: providers.${name}.api_key` } : undefined) ??
    (entry.key_env ? envKey(context.env, entry.key_env) : undefined) ??
    hostKey(context.env, baseUrl);
  const fallback = typeof entry.model === "string" && entry.model ? entry.model : entry.models?.[0];
  return {
    provider: name,
    baseUrl,
    apiKey: key?.value ?? NO_KEY,
    source: [`providers.${name} in config.yaml`, key?.source ?? "key: none"],
    ...(fallback ? { fallbackModel: fallback } : {}),
  };
}

/** An OpenAI-compatible endpoint at `url`: key from model.api_key → the host's conventional variable → none. */
function urlEndpoint(context: Context, url: string, urlSource: string, provider: string, origin: string): Endpoint {
  const baseUrl = checkedUrl(url, urlSource.replace(/^env /, ""));
  const key = configKey(context.config) ?? hostKey(context.env, baseUrl);
  const hostProvider = providerForHost(hostOf(baseUrl));
  if (!key && hostProvider !== "custom") {
    throw missingKey(context, `${baseUrl} (${urlSource})`, hostProvider === "openai" ? "OPENAI_API_KEY" : "OPENROUTER_API_KEY");
  }
  const fallback = hostProvider === provider ? DEFAULT_MODELS[provider] : undefined;
  return {
    provider,
    baseUrl,
    apiKey: key?.value ?? NO_KEY,
    source: [origin, `base_url: ${urlSource}`, key?.source ?? "key: none"],
    ...(fallback ? { fallbackModel: fallback } : {}),
  };
}

interface Key {
  value: string;
  source: string;
}

function configKey(config: HermesConfig): Key | undefined {
  const value = config.model.api_key?.trim();
  return value ? { value, source: "key: model.api_key" } : undefined;
}

function envKey(env: Env, name: string): Key | undefined {
  const value = envValue(env, name);
  return value ? { value, source: `key: env ${name}` } : undefined;
}

/** OPENAI_API_KEY for api.openai.com, OPENROUTER_API_KEY for openrouter.ai, else `<VENDOR>_API_KEY`. */
function hostKey(env: Env, baseUrl: string): Key | undefined {
  const host = hostOf(baseUrl);
  const provider = providerForHost(host);
  if (provider === "openai") return envKey(env, "OPENAI_API_KEY");
  if (provider === "openrouter") return envKey(env, "OPENROUTER_API_KEY");
  const vendor = vendorKeyName(host);
  return vendor ? envKey(env, vendor) : undefined;
}

function providerForHost(host: string): string {
  if (host === "api.openai.com") return "openai";
  if (host === "openrouter.ai" || host.endsWith(".openrouter.ai")) return "openrouter";
  return "custom";
}

/**
 * `<LABEL>_API_KEY` from the host's registrable label (`api.deepseek.com` → `DEEPSEEK_API_KEY`,
 * `api.example.co.uk` → `EXAMPLE_API_KEY`); undefined for IP addresses and single-label hosts.
 */
export function vendorKeyName(host: string): string | undefined {
  if (!host || host.includes(":") || /^\d+(\.\d+){3}$/.test(host)) return undefined;
  const labels = host.toLowerCase().split(".").filter(Boolean);
  if (labels.length < 2) return undefined;
  const secondLevel = labels.at(-2) ?? "";
  const compound = labels.length >= 3 && (labels.at(-1) ?? "").length === 2 && /^(co|com|net|org|ac|gov|edu)$/.test(secondLevel);
  const label = compound ? labels.at(-3) : secondLevel;
  return label ? `${label.replace(/[^a-z0-9]+/g, "_").toUpperCase()}_API_KEY` : undefined;
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

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return "";
  }
}

function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}
