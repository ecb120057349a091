/**
 * Which web backend serves `web_search` / `web_extract`, and with what key and base URL. Hermes'
 * rule (`tools/web_tools.py` `_get_backend`, the `plugins/web/*` providers): `web.backend` in
 * config.yaml when it names a backend, else the first whose credentials are present, in the order
 * Firecrawl (`FIRECRAWL_API_KEY`, or a self-hosted `FIRECRAWL_API_URL`) > Parallel
 * (`PARALLEL_API_KEY`) > Tavily (`TAVILY_API_KEY`) > Exa (`EXA_API_KEY`) > SearXNG
 * (`web.searxng_url` / `SEARXNG_URL`, self-hosted, no key). Keys come from the environment merged
 * with `$HERMES_HOME/.env` (the environment wins), and are registered for redaction.
 * Cheap and synchronous (one small file read); safe to call when a session starts.
 */
import { loadDotenv } from "../../config/dotenv.js";
import { hermesHome, homePaths } from "../../config/paths.js";
import { registerSecret } from "../../config/redact.js";
import type { HermesConfig } from "../../config/schema.js";

export type BackendName = "firecrawl" | "parallel" | "tavily" | "exa" | "searxng";

/** Hermes' preference order when `web.backend` names none. */
export const BACKEND_ORDER: readonly BackendName[] = ["firecrawl", "parallel", "tavily", "exa", "searxng"];

export const BACKEND_LABELS: Readonly<Record<BackendName, string>> = {
  firecrawl: "Firecrawl",
  parallel: "Parallel",
  tavily: "Tavily",
  exa: "Exa",
  searxng: "SearXNG",
};

/** The variables holding backend keys (registered for redaction whenever read). */
export const BACKEND_KEY_VARIABLES = ["FIRECRAWL_API_KEY", "PARALLEL_API_KEY", "TAVILY_API_KEY", "EXA_API_KEY"] as const;

export interface BackendSettings {
  name: BackendName;
  /** Without a trailing slash. */
  baseUrl: string;
  /** Absent for SearXNG and a keyless self-hosted Firecrawl. */
  apiKey?: string;
}

export type WebConfig = Partial<Pick<HermesConfig, "web">>;

/**
 * `env` with `$HERMES_HOME/.env` (of `home`, else of `env.HERMES_HOME`) added under it; every
 * value of the file and every backend key are registered for redaction. An unreadable file adds
 * nothing. Never throws.
 */
export function webEnv(env: NodeJS.ProcessEnv, home: string = hermesHome(env)): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...env };
  try {
    loadDotenv(homePaths(home).envFile, merged);
  } catch {
    // unreadable .env: the environment alone
  }
  for (const name of BACKEND_KEY_VARIABLES) registerSecret(merged[name]);
  return merged;
}

/** What `name` would run with here, or undefined when its key or URL is missing. */
export function backendSettings(name: BackendName, config: WebConfig, env: NodeJS.ProcessEnv): BackendSettings | undefined {
  const web = config.web;
  const value = (key: string): string | undefined => env[key]?.trim() || undefined;
  const base = (...candidates: Array<string | undefined>): string => candidates.find((candidate) => candidate?.trim())!.trim().replace(/\/+$/, "");
  switch (name) {
    case "firecrawl": {
      const apiKey = value("FIRECRAWL_API_KEY");
      const selfHosted = web?.firecrawl_api_url ?? value("FIRECRAWL_API_URL");
      if (!apiKey && !selfHosted) return undefined;
      return { name, baseUrl: base(selfHosted, "https://api.firecrawl.dev"), ...(apiKey ? { apiKey } : {}) };
    }
    case "parallel": {
      const apiKey = value("PARALLEL_API_KEY");
      return apiKey ? { name, apiKey, baseUrl: base(web?.parallel_api_url, "https://api.parallel.ai") } : undefined;
    }
    case "tavily": {
      const apiKey = value("TAVILY_API_KEY");
      return apiKey ? { name, apiKey, baseUrl: base(web?.tavily_api_url, value("TAVILY_BASE_URL"), value("TAVILY_API_URL"), "https://api.tavily.com") } : undefined;
    }
    case "exa": {
      const apiKey = value("EXA_API_KEY");
      return apiKey ? { name, apiKey, baseUrl: base(web?.exa_api_url, "https://api.exa.ai") } : undefined;
    }
    case "searxng": {
      const url = web?.searxng_url ?? value("SEARXNG_URL");
      return url ? { name, baseUrl: base(url) } : undefined;
    }
  }
}

export type BackendChoice = { backend: BackendSettings } | { backend?: undefined; reason: string };

/** The backend to use now: `web.backend` when it names one, else the first available in Hermes' order. */
export function selectBackend(config: WebConfig, env: NodeJS.ProcessEnv): BackendChoice {
  const configured = config.web?.backend;
  if (configured && isBackendName(configured)) {
    const backend = backendSettings(configured, config, env);
    return backend ? { backend } : { reason: `web.backend is ${configured} but ${missingFor(configured)}` };
  }
  for (const name of BACKEND_ORDER) {
    const backend = backendSettings(name, config, env);
    if (backend) return { backend };
  }
  return {
    reason:
      "needs a search backend: set FIRECRAWL_API_KEY (or FIRECRAWL_API_URL for self-hosted Firecrawl), PARALLEL_API_KEY, TAVILY_API_KEY " +
      "or EXA_API_KEY in the environment or $HERMES_HOME/.env, or web.searxng_url in config.yaml",
  };
}

/**
 * Why `web_search` cannot be offered with this config and environment (`$HERMES_HOME/.env`
 * included), or undefined when a backend is there. For the toolset's availability check.
 */
export function webSearchUnavailable(config: WebConfig, env: NodeJS.ProcessEnv): string | undefined {
  const choice = selectBackend(config, webEnv(env));
  return choice.backend ? undefined : choice.reason;
}

export function isBackendName(name: string): name is BackendName {
  return (BACKEND_ORDER as readonly string[]).includes(name);
}

function missingFor(name: BackendName): string {
  switch (name) {
    case "firecrawl":
      return "neither FIRECRAWL_API_KEY nor FIRECRAWL_API_URL (web.firecrawl_api_url) is set";
    case "searxng":
      return "web.searxng_url (or SEARXNG_URL) is not set";
    default:
      return `${name.toUpperCase()}_API_KEY is not set`;
  }
}
