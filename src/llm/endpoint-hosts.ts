/**
 * What an endpoint URL says about itself: which known provider serves it, which environment
 * variable conventionally holds its key, and which wire API it speaks; and reading those keys
 * from the environment. Pure; never throws.
 */
import { presetForHost, PROVIDER_PRESETS } from "./presets.js";
import type { ApiMode } from "./types.js";

export { ANTHROPIC_BASE_URL, NOUS_BASE_URL, OLLAMA_BASE_URL, OPENAI_BASE_URL, OPENROUTER_BASE_URL } from "./presets.js";

/** Environment variables holding each preset provider's key, in the order they are tried. */
export const KEY_VARIABLES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  PROVIDER_PRESETS.map((preset) => [preset.id, preset.keyVariables]),
);

/** The hostname of `url`, lower case, without IPv6 brackets; "" when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return "";
  }
}

/** The built-in provider a host belongs to (`openai`, `openrouter`, `anthropic`, `nous`), else `custom`. */
export function providerForHost(host: string): string {
  if (isOfficialOpenAiHost(host)) return "openai";
  if (host === "openrouter.ai" || host.endsWith(".openrouter.ai")) return "openrouter";
  if (host === "api.anthropic.com") return "anthropic";
  if (host === "nousresearch.com" || host.endsWith(".nousresearch.com")) return "nous";
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

/**
 * The variables that may hold the key for an endpoint on `host`: the built-in provider's own
 * (`OPENAI_API_KEY` only for api.openai.com, `OPENROUTER_API_KEY` only for openrouter.ai, …), then
 * a preset's on its default host (`XAI_API_KEY` on api.x.ai, `GOOGLE_API_KEY` / `GEMINI_API_KEY` on
 * generativelanguage.googleapis.com), else the vendor variable derived from the host. Empty for IP
 * addresses and single-label hosts.
 */
export function hostKeyVariables(host: string): readonly string[] {
  const known = KEY_VARIABLES[providerForHost(host)] ?? presetForHost(host)?.keyVariables;
  if (known) return known;
  const vendor = vendorKeyName(host);
  return vendor ? [vendor] : [];
}

/**
 * The wire API an endpoint speaks whatever the model, as Hermes detects it: `responses` for
 * api.x.ai; `anthropic_messages` for api.anthropic.com, a path ending in `/anthropic` or
 * `/anthropic/v1`, and api.kimi.com/coding; `chat_completions` otherwise (see `apiModeFor` for the
 * model-dependent rule on OpenAI's own hosts).
 */
export function apiModeForUrl(baseUrl: string): ApiMode {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "chat_completions";
  }
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/\/+$/, "").toLowerCase();
  if (host === "api.x.ai") return "responses";
  if (host === "api.anthropic.com") return "anthropic_messages";
  if (/\/anthropic(\/v1)?$/.test(path)) return "anthropic_messages";
  if (host === "api.kimi.com" && (path === "/coding" || path.startsWith("/coding/"))) return "anthropic_messages";
  return "chat_completions";
}

/** OpenAI's own API hosts: api.openai.com and its data-residency hosts (us., eu.). */
export function isOfficialOpenAiHost(host: string): boolean {
  return host === "api.openai.com" || /^[a-z]{2}\.api\.openai\.com$/.test(host);
}

/**
 * Whether `model` needs OpenAI's Responses API on OpenAI's own hosts: the GPT-5 family (codex
 * included; Hermes' `_model_requires_responses_api`), codex models, and the o1 / o3 / o4 reasoning
 * models (not o1-mini / o1-preview). A vendor prefix (`openai/gpt-5`) is ignored.
 */
export function modelNeedsResponses(model: string): boolean {
  const name = (model.trim().toLowerCase().split("/").pop() ?? "").trim();
  if (name.startsWith("gpt-5") || name.includes("codex")) return true;
  // o1-mini / o1-preview predate the Responses API's reasoning items and still answer chat completions.
  return /^o[134](-|$)/.test(name) && !/^o1-(mini|preview)/.test(name);
}

/**
 * The wire API for `model` at `baseUrl` when config names none: `apiModeForUrl`, except that on
 * OpenAI's own hosts a model that needs it (`modelNeedsResponses`) gets `responses`.
 */
export function apiModeFor(baseUrl: string, model: string): ApiMode {
  const byUrl = apiModeForUrl(baseUrl);
  if (byUrl === "chat_completions" && isOfficialOpenAiHost(hostOf(baseUrl)) && modelNeedsResponses(model)) return "responses";
  return byUrl;
}

/** `chat_completions` / `responses` (also Hermes' `codex_responses`) / `anthropic_messages` when `value` names one (any case), else undefined. */
export function explicitApiMode(value: unknown): ApiMode | undefined {
  const mode = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (mode === "responses" || mode === "codex_responses") return "responses";
  return mode === "chat_completions" || mode === "anthropic_messages" ? mode : undefined;
}

/** A key found for an endpoint, with where it came from (for `--check` and logs; never the value). */
export interface Key {
  value: string;
  source: string;
}

/** `env[name]` trimmed; undefined when unset or blank. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function envKey(env: NodeJS.ProcessEnv, name: string): Key | undefined {
  const value = envValue(env, name);
  return value ? { value, source: `key: env ${name}` } : undefined;
}

/** The first of `names` set in `env`. */
export function firstEnvKey(env: NodeJS.ProcessEnv, names: readonly string[]): Key | undefined {
  for (const name of names) {
    const key = envKey(env, name);
    if (key) return key;
  }
  return undefined;
}

/** The key for an endpoint at `baseUrl` from its host's conventional variables (see `hostKeyVariables`). */
export function hostKey(env: NodeJS.ProcessEnv, baseUrl: string): Key | undefined {
  return firstEnvKey(env, hostKeyVariables(hostOf(baseUrl)));
}
