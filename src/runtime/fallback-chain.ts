/**
 * A session's fallback chain from config.yaml: `fallback_providers`, then Hermes' older single
 * `fallback_model` (when it is not already listed), as `FallbackCandidate`s for `runTurn` (see
 * agent/fallback.ts for when the chain is used). Nothing is resolved and no provider is built until
 * a turn's chain reaches the entry; each entry is resolved at most once per session.
 */
import type { FallbackCandidate, TurnModel } from "../agent/fallback.js";
import { registerSecret } from "../config/redact.js";
import type { HermesConfig } from "../config/schema.js";
import { supportsReasoningEffort } from "../llm/catalog.js";
import { explicitApiMode } from "../llm/endpoint-hosts.js";
import { resolveProvider } from "../llm/resolve.js";
import type { Provider, ResolvedProvider } from "../llm/types.js";
import { HermesError } from "../shared/errors.js";
import { keyHint } from "./key-hint.js";

/** One `fallback_providers:` entry as config.yaml gives it. */
export type FallbackEntry = HermesConfig["fallback_providers"][number];

/** `fallback_providers` followed by `fallback_model`, each endpoint-and-model once, in order. Pure. */
export function fallbackEntries(config: HermesConfig): FallbackEntry[] {
  const entries = [...config.fallback_providers, ...(config.fallback_model ?? [])];
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const id = [entry.provider.toLowerCase(), entry.model ?? "", entry.base_url ?? "", entry.api_key ?? "", entry.api_mode ?? ""].join("\n");
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** `provider:model` (or the provider alone), as the entry names it; never its key. Pure. */
export function entryLabel(entry: FallbackEntry): string {
  return entry.model ? `${entry.provider}:${entry.model}` : entry.provider;
}

/**
 * Resolves one entry like the session's model. Without `base_url`: `provider` as if `model.provider`
 * named it (a built-in id or a `providers:` entry; the configured provider keeps its endpoint), with
 * `model` (absent = the provider's default), then `api_key` / `api_mode` override what was found.
 * With `base_url`: an OpenAI-compatible (or `api_mode`) endpoint there, keyed by `api_key` or the host's
 * conventional variable, labelled `provider`. Throws HermesError `auth_required` (no key, no model,
 * unsupported provider) or `config_invalid` (a base URL that is not http(s)); no network, no disk.
 */
export function resolveFallbackEntry(config: HermesConfig, env: NodeJS.ProcessEnv, entry: FallbackEntry): ResolvedProvider {
  const model = entry.model?.trim() ?? "";
  if (entry.base_url) {
    const section: HermesConfig["model"] = { ...config.model, provider: "custom", base_url: entry.base_url };
    delete section.default;
    delete section.api_key;
    delete section.api_keys;
    delete section.api_mode;
    if (model) section.default = model;
    if (entry.api_key) section.api_key = entry.api_key;
    if (entry.api_mode) section.api_mode = entry.api_mode;
    const resolved = resolveProvider({ ...config, model: section }, env);
    return { ...resolved, provider: entry.provider, source: `fallback_providers ${entryLabel(entry)}; ${resolved.source}` };
  }
  const resolved = resolveProvider(config, env, undefined, { provider: entry.provider, model });
  const apiMode = explicitApiMode(entry.api_mode) ?? resolved.apiMode;
  if (!entry.api_key) return { ...resolved, apiMode };
  registerSecret(entry.api_key);
  const { apiKeys: _pool, ...single } = resolved;
  return { ...single, apiMode, apiKey: entry.api_key, source: `${resolved.source}; key: fallback_providers api_key` };
}

export interface FallbackChainOptions {
  /** The session's config (fixed for its life). */
  config: HermesConfig;
  env: NodeJS.ProcessEnv;
  /** Builds the wire provider of a resolved entry (`ConfigSource.provider`). */
  provider: (resolved: ResolvedProvider) => Promise<Provider>;
}

/**
 * The chain of one session: called per turn with the session's current model, it answers the
 * candidates for `runTurn` (empty when config.yaml names none). A candidate resolves on its first use
 * and keeps that result (or its rejection) for the session; it rejects with a message naming no key
 * when the entry cannot be used, including when it is the session's own model (same URL, model and
 * key), which the chain would only ask again. Never throws.
 */
export function createFallbackChain(options: FallbackChainOptions): (main: ResolvedProvider) => FallbackCandidate[] {
  const entries = fallbackEntries(options.config);
  const resolved = new Map<number, Promise<{ endpoint: ResolvedProvider; model: TurnModel }>>();
  const resolveAt = (index: number, entry: FallbackEntry): Promise<{ endpoint: ResolvedProvider; model: TurnModel }> => {
    let pending = resolved.get(index);
    if (!pending) {
      pending = (async () => {
        const endpoint = resolveFallbackEntry(options.config, options.env, entry);
        const hint = keyHint(endpoint);
        const model: TurnModel = {
          provider: await options.provider(endpoint),
          model: endpoint.model,
          providerLabel: endpoint.provider,
          label: `${endpoint.provider}:${endpoint.model}`,
          reasoningEffort: endpoint.apiMode === "chat_completions" && supportsReasoningEffort(endpoint.model),
          ...(hint ? { keyHint: hint } : {}),
        };
        return { endpoint, model };
      })();
      resolved.set(index, pending);
    }
    return pending;
  };
  return (main) =>
    entries.map((entry, index) => ({
      label: entryLabel(entry),
      resolve: async () => {
        const { endpoint, model } = await resolveAt(index, entry);
        if (sameModel(endpoint, main)) throw new HermesError("invalid_params", `it is the session's own model (${model.label})`);
        return model;
      },
    }));
}

/** The same endpoint, model and key: asking it again is what the retries already did. */
function sameModel(a: ResolvedProvider, b: ResolvedProvider): boolean {
  return a.baseUrl === b.baseUrl && a.model === b.model && a.apiKey === b.apiKey;
}
