/**
 * What an endpoint URL says about itself: which known provider serves it, which environment
 * variable conventionally holds its key, and which wire API it speaks; and reading those keys
 * from the environment. Pure; never throws.
 */
import type { ApiMode } from "./types.js";

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The Anthropic SDK's own convention: no `/v1` (it appends `/v1/messages`). */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** Nous Portal's OpenAI-compatible inference API. */
export const NOUS_BASE_URL = "https://inference-api.nousresearch.com/v1";
export const OLLAMA_BASE_URL = "http://localhost:11434/v1";

/** Environment variables holding each built-in provider's key, in the order they are tried. */
export const KEY_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  openrouter: ["OPENROUTER_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN"],
  nous: ["NOUS_API_KEY"],
};

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
  if (host === "api.openai.com") return "openai";
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
 * (`OPENAI_API_KEY` only for api.openai.com, `OPENROUTER_API_KEY` only for openrouter.ai, …), else
 * the vendor variable derived from the host. Empty for IP addresses and single-label hosts.
 */
export function hostKeyVariables(host: string): readonly string[] {
  const known = KEY_VARIABLES[providerForHost(host)];
  if (known) return known;
  const vendor = vendorKeyName(host);
  return vendor ? [vendor] : [];
}

/**
 * The wire API an endpoint speaks, as Hermes detects it: `anthropic_messages` for
 * api.anthropic.com, a path ending in `/anthropic` or `/anthropic/v1`, and api.kimi.com/coding;
 * `chat_completions` otherwise.
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
  if (host === "api.anthropic.com") return "anthropic_messages";
  if (/\/anthropic(\/v1)?$/.test(path)) return "anthropic_messages";
  if (host === "api.kimi.com" && (path === "/coding" || path.startsWith("/coding/"))) return "anthropic_messages";
  return "chat_completions";
}

/** `chat_completions` / `anthropic_messages` when `value` names one of them (any case), else undefined. */
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
