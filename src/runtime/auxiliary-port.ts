/**
 * The `auxiliaryModel` port: side requests a tool makes to a model (Hermes' `auxiliary.<task>`
 * routing). A task with its own model in config.yaml (`base_url` + `model`, or `provider` +
 * `model`, or a `model` on the session's provider) uses it; otherwise the session's current model
 * answers. The provider is built on first use and kept while the settings stay the same.
 */
import type { HermesConfig } from "../config/schema.js";
import { registerSecret } from "../config/redact.js";
import { apiModeForUrl, explicitApiMode } from "../llm/endpoint-hosts.js";
import { NO_KEY } from "../llm/resolve.js";
import type { Provider, ResolvedProvider } from "../llm/types.js";
import type { AuxiliaryModelPort, AuxiliaryTask } from "../tools/ports.js";
import { createSummarizer } from "./summarizer.js";

export interface AuxiliaryPortDeps {
  config: HermesConfig;
  /** The session's model now (it may be switched between turns). */
  session: () => { resolved: ResolvedProvider; provider: Provider };
  /** Resolves `provider:model` or a bare model on `current`'s provider (ConfigSource.resolveModel). Throws HermesError. */
  resolveModel: (value: string, current: ResolvedProvider) => ResolvedProvider;
  /** The wire provider for a resolved endpoint (ConfigSource.provider). */
  provider: (resolved: ResolvedProvider) => Promise<Provider>;
}

type TaskSettings = NonNullable<HermesConfig["auxiliary"]["vision"]>;

export function createAuxiliaryPort(deps: AuxiliaryPortDeps): AuxiliaryModelPort {
  const built = new Map<string, Promise<Provider>>();
  const target = (task: AuxiliaryTask): { resolved: ResolvedProvider; configured: boolean } => {
    const settings = task === "title" ? (deps.config.auxiliary.title ?? deps.config.auxiliary.title_generation) : deps.config.auxiliary[task];
    const session = deps.session().resolved;
    const own = settings ? ownEndpoint(settings, session, deps.resolveModel) : undefined;
    return own ? { resolved: own, configured: true } : { resolved: session, configured: false };
  };
  return {
    async complete(task, messages, options) {
      const { resolved, configured } = target(task);
      let provider: Provider;
      if (!configured) provider = deps.session().provider;
      else {
        const key = `${resolved.apiMode}\n${resolved.baseUrl}\n${resolved.apiKey}`;
        let pending = built.get(key);
        if (!pending) {
          pending = deps.provider(resolved);
          built.set(key, pending);
          pending.catch(() => built.delete(key));
        }
        provider = await pending;
      }
      return createSummarizer(
        () => provider,
        () => resolved.model,
        `${task.replace("_", " ")} request`,
      )(messages, options.signal, { maxTokens: options.maxTokens });
    },
    describe(task) {
      try {
        const { resolved, configured } = target(task);
        return { provider: resolved.provider, model: resolved.model, configured };
      } catch {
        return undefined;
      }
    },
  };
}

/** The endpoint `auxiliary.<task>` names, or undefined when it leaves the task to the session's model. Throws HermesError for a provider it cannot resolve. */
function ownEndpoint(settings: TaskSettings, session: ResolvedProvider, resolveModel: AuxiliaryPortDeps["resolveModel"]): ResolvedProvider | undefined {
  const model = settings.model?.trim();
  if (settings.base_url) {
    if (!model) return undefined;
    registerSecret(settings.api_key);
    return {
      provider: settings.provider === "auto" ? "custom" : settings.provider,
      apiMode: explicitApiMode(settings.api_mode) ?? apiModeForUrl(settings.base_url),
      baseUrl: settings.base_url.replace(/\/+$/, ""),
      apiKey: settings.api_key ?? NO_KEY,
      model,
      source: "auxiliary: base_url",
    };
  }
  if (!model) return undefined;
  if (settings.provider !== "auto") return resolveModel(`${settings.provider}:${model}`, session);
  return resolveModel(model, session);
}
