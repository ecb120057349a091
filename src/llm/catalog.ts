/**
 * The model catalog behind the editor's model picker: per configured provider, the models config
 * declares plus the endpoint's live `GET /models` list. Live lists are fetched only when asked for
 * (never at start-up), each with a short timeout, and cached per endpoint for the life of the
 * process; a failed fetch falls back to the declared models and is retried after a pause.
 */
import type { HermesConfig } from "../config/schema.js";
import { configuredEndpoints, customModelId, namedProviderNames, NO_KEY, type ProviderEndpoint } from "./resolve.js";
import { httpFetch } from "./http-fetch.js";

/** One choice of the picker. `id` is `provider:model`, or Hermes' `custom:<slug>:<model>` for a named endpoint. */
export interface CatalogEntry {
  provider: string;
  model: string;
  id: string;
  /** Context window in tokens, when config or the provider's model list says. */
  contextLength?: number;
}

/** One model of an endpoint's live list. */
export interface LiveModel {
  id: string;
  contextLength?: number;
}

export interface ModelCatalogOptions {
  /** Default `httpFetch` (node:http, see http-fetch.ts). */
  fetch?: typeof fetch;
  /** Longest wait for one endpoint's list, body included. Default 1,500 ms. */
  timeoutMs?: number;
  /** How long a failed fetch is remembered before the endpoint is asked again. Default 60 s. */
  retryFailedAfterMs?: number;
  /** Clock for `retryFailedAfterMs`. Default `Date.now`. */
  now?: () => number;
}

export const CATALOG_FETCH_TIMEOUT_MS = 1_500;
/** Sent to Anthropic-style `/v1/models`; the long-standing version every compatible server accepts. */
const ANTHROPIC_MODELS_VERSION = "2023-06-01";
/** Ids of models that are not chat models (embeddings, speech, images, moderation…). */
const NOT_CHAT = /(^|[-_/.:])(embed|embedding|embeddings|whisper|tts|dall-e|moderation|rerank|transcribe|davinci|babbage|gpt-image|sora|realtime)([-_/.:]|\d|$)/i;

/** `provider:model`. */
export function modelId(provider: string, model: string): string {
  return `${provider}:${model}`;
}

/**
 * Splits `provider:model` at the first colon when the part before it names one of `providers`
 * (any case; the known spelling is returned), so `ollama:qwen3:8b` is `ollama` + `qwen3:8b`.
 * Undefined when there is no such prefix or the model part is empty.
 */
export function parseModelId(value: string, providers: readonly string[]): { provider: string; model: string } | undefined {
  const colon = value.indexOf(":");
  if (colon <= 0) return undefined;
  const prefix = value.slice(0, colon).trim().toLowerCase();
  const provider = providers.find((name) => name.toLowerCase() === prefix);
  const model = value.slice(colon + 1).trim();
  return provider && model ? { provider, model } : undefined;
}

interface CacheSlot {
  models?: LiveModel[];
  pending?: Promise<LiveModel[] | undefined>;
  failedAt?: number;
}

/**
 * Catalogs of the configured endpoints. One instance per process (the runtime's) holds the cache.
 * No method throws or rejects; none does I/O except `list` and `liveModels`.
 */
export class ModelCatalog {
  private readonly cache = new Map<string, CacheSlot>();
  /** Context windows from the live lists fetched so far, by lower-case provider id, then model. */
  private readonly windows = new Map<string, Map<string, number>>();
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly retryFailedAfterMs: number;
  private readonly now: () => number;

  constructor(options: ModelCatalogOptions = {}) {
    this.fetchImpl = options.fetch ?? httpFetch;
    this.timeoutMs = options.timeoutMs ?? CATALOG_FETCH_TIMEOUT_MS;
    this.retryFailedAfterMs = options.retryFailedAfterMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Declared models of every configured endpoint plus the live lists fetched so far; no I/O. The
   * configured default comes first (see `assembleCatalog`).
   */
  snapshot(config: HermesConfig, env: NodeJS.ProcessEnv = process.env): CatalogEntry[] {
    const endpoints = configuredEndpoints(config, env);
    return assembleCatalog(config, endpoints.map((endpoint) => ({ endpoint, live: this.cachedModels(endpoint) })));
  }

  /**
   * Declared plus live models of every configured endpoint, fetching the lists not cached yet in
   * parallel (each within the timeout). An endpoint whose fetch fails contributes its declared
   * models only.
   */
  async list(config: HermesConfig, env: NodeJS.ProcessEnv = process.env): Promise<CatalogEntry[]> {
    const endpoints = configuredEndpoints(config, env);
    const lives = await Promise.all(endpoints.map((endpoint) => this.liveModels(endpoint)));
    return assembleCatalog(config, endpoints.map((endpoint, index) => ({ endpoint, live: lives[index] })));
  }

  /**
   * A model's context window from the live lists fetched so far (see `list`); undefined when
   * unknown. No I/O: usable as the runtime's `ModelWindowLookup` on every model call.
   */
  contextLength(provider: string, model: string): number | undefined {
    return this.windows.get(provider.toLowerCase())?.get(model);
  }

  /** The endpoint's cached live list; undefined when not fetched (yet) or failed. No I/O. */
  cachedModels(endpoint: ProviderEndpoint): LiveModel[] | undefined {
    return this.cache.get(cacheKey(endpoint))?.models;
  }

  /**
   * The endpoint's live list: from the cache, else fetched once (concurrent callers share the
   * fetch). Undefined when the fetch failed (an HTTP error, unreadable JSON, the timeout) or the
   * endpoint is known not to list models (`listsModels: false`); a failure is remembered for
   * `retryFailedAfterMs` unless `retryFailed` (a session waiting for its model asks again at once).
   */
  liveModels(endpoint: ProviderEndpoint, options: { retryFailed?: boolean } = {}): Promise<LiveModel[] | undefined> {
    if (endpoint.listsModels === false) return Promise.resolve(undefined);
    const key = cacheKey(endpoint);
    const slot = this.cache.get(key);
    if (slot?.models) return Promise.resolve(slot.models);
    if (slot?.pending) return slot.pending;
    const remembered = slot?.failedAt !== undefined && this.now() - slot.failedAt < this.retryFailedAfterMs;
    if (remembered && !options.retryFailed) return Promise.resolve(undefined);
    const pending = fetchModelList(endpoint, this.fetchImpl, this.timeoutMs).then(
      (models) => {
        this.cache.set(key, { models });
        const windows = this.windows.get(endpoint.provider.toLowerCase()) ?? new Map<string, number>();
        for (const model of models) if (model.contextLength) windows.set(model.id, model.contextLength);
        this.windows.set(endpoint.provider.toLowerCase(), windows);
        return models;
      },
      () => {
        this.cache.set(key, { failedAt: this.now() });
        return undefined;
      },
    );
    this.cache.set(key, { pending });
    return pending;
  }
}

/**
 * The picker's entries, endpoint by endpoint in the given order (the configured one first): its
 * declared models in order, then its live models not declared. Each `provider:model` appears once;
 * a named endpoint's (`providers:` / `custom_providers:`) are `custom:<slug>:<model>`, as Hermes names them.
 * `model.context_length` applies to the configured default; other lengths come from live lists.
 */
export function assembleCatalog(config: HermesConfig, endpoints: { endpoint: ProviderEndpoint; live: LiveModel[] | undefined }[]): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  const seen = new Set<string>();
  const named = new Set(namedProviderNames(config).map((name) => name.toLowerCase()));
  const add = (provider: string, model: string, contextLength: number | undefined): void => {
    const id = named.has(provider.toLowerCase()) ? customModelId(provider, model) : modelId(provider, model);
    if (seen.has(id)) return;
    seen.add(id);
    entries.push({ provider, model, id, ...(contextLength ? { contextLength } : {}) });
  };
  endpoints.forEach(({ endpoint, live }, index) => {
    const lengths = new Map((live ?? []).map((model) => [model.id, model.contextLength]));
    endpoint.models.forEach((model, position) => {
      const configured = index === 0 && position === 0 ? config.model.context_length : undefined;
      add(endpoint.provider, model, configured ?? lengths.get(model));
    });
    for (const model of live ?? []) add(endpoint.provider, model.id, model.contextLength);
  });
  return entries;
}

function cacheKey(endpoint: ProviderEndpoint): string {
  return `${endpoint.apiMode}\n${endpoint.baseUrl}\n${endpoint.apiKey}`;
}

/**
 * `GET {base_url}/models` (OpenAI style, bearer key) or `GET {root}/v1/models` (Anthropic style,
 * `x-api-key`), aborted after `timeoutMs`. Rejects on any failure.
 */
async function fetchModelList(endpoint: ProviderEndpoint, fetchImpl: typeof fetch, timeoutMs: number): Promise<LiveModel[]> {
  const anthropic = endpoint.apiMode === "anthropic_messages";
  const base = endpoint.baseUrl.replace(/\/+$/, "");
  const url = anthropic ? `${base.replace(/\/v1$/, "")}/v1/models?limit=1000` : `${base}/models`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (anthropic) headers["anthropic-version"] = ANTHROPIC_MODELS_VERSION;
  if (endpoint.apiKey && endpoint.apiKey !== NO_KEY) {
    if (anthropic) headers["x-api-key"] = endpoint.apiKey;
    else headers.authorization = `Bearer ${endpoint.apiKey}`;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  timer.unref();
  try {
    const response = await fetchImpl(url, { headers, signal: controller.signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    return parseModelList(await response.json());
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Model ids (and context windows where given) from a `/models` answer: OpenAI / OpenRouter / vLLM /
 * llama.cpp / LM Studio `{data: [...]}`, Ollama-style `{models: [...]}`, Anthropic's `{data: [...]}`,
 * or a bare array. Entries that are not chat models (embeddings, speech, images…) are left out.
 */
export function parseModelList(body: unknown): LiveModel[] {
  const record = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
  const list = Array.isArray(body) ? body : Array.isArray(record.data) ? record.data : Array.isArray(record.models) ? record.models : [];
  const models: LiveModel[] = [];
  for (const item of list as unknown[]) {
    const fields = item !== null && typeof item === "object" ? (item as Record<string, unknown>) : {};
    const raw = typeof item === "string" ? item : (fields.id ?? fields.name ?? fields.model);
    const id = typeof raw === "string" ? raw.trim() : "";
    if (!id || NOT_CHAT.test(id)) continue;
    const contextLength = firstLength(fields);
    models.push(contextLength ? { id, contextLength } : { id });
  }
  return models;
}

function firstLength(fields: Record<string, unknown>): number | undefined {
  const nested = (key: string, inner: string): unknown => {
    const value = fields[key];
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[inner] : undefined;
  };
  const candidates = [
    fields.context_length,
    fields.max_model_len,
    fields.max_context_length,
    fields.context_window,
    fields.max_input_tokens,
    nested("top_provider", "context_length"),
    nested("meta", "n_ctx_train"),
  ];
  for (const value of candidates) {
    if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

/** Effort levels a reasoning-effort picker offers (Hermes' `agent.reasoning_effort` values; `none` turns reasoning off). */
export const REASONING_EFFORTS = ["none", "low", "medium", "high"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === "string" && (REASONING_EFFORTS as readonly string[]).includes(value);
}

/**
 * Whether the model takes a reasoning-effort setting: OpenAI o-series (not o1-mini / o1-preview),
 * GPT-5 (not the `-chat` variants), gpt-oss, codex-mini; Claude 3.7 and Claude 4 or later
 * (extended thinking); Gemini 2.5 or later; Grok 3 mini. A vendor prefix (`openai/o3`) is ignored.
 */
export function supportsReasoningEffort(model: string): boolean {
  const name = (model.toLowerCase().split("/").pop() ?? "").trim();
  const dashed = name.replace(/\./g, "-");
  if (/^o[1-9](-|$)/.test(name)) return !/^o1-(mini|preview)/.test(name);
  if (/^gpt-5/.test(name)) return !/^gpt-5(-\d+)?-chat/.test(dashed);
  if (/^(gpt-oss|codex-mini)/.test(name)) return true;
  if (/^claude-(3-7-|(sonnet|opus|haiku|fable|mythos)-([4-9]|\d{2,})|[4-9]-)/.test(dashed)) return true;
  if (/^gemini-(2-5|[3-9])/.test(dashed)) return true;
  return /^grok-3-mini/.test(name);
}
