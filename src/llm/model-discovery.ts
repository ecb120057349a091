/**
 * Zero-config local servers: when config names an endpoint but no model (and the endpoint has no
 * default of its own), the endpoint's `GET /models` list decides, as Hermes does for a local
 * server (`_auto_detect_local_model`): its only model, or its first one. Resolution itself stays
 * pure (`resolveProviderOrDiscovery`); this is the one asynchronous step, used by session
 * creation and `--check`.
 */
import type { HermesConfig } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import type { ModelCatalog } from "./catalog.js";
import { resolveProviderOrDiscovery, type ModelTarget } from "./resolve.js";
import type { ResolvedProvider } from "./types.js";

export interface DiscoveredProvider {
  resolved: ResolvedProvider;
  /** Set when the model came from the endpoint's list: one sentence for the user saying which and why. */
  notice?: string;
}

/**
 * `resolveProvider`, asking the endpoint's model list (through `catalog`: cached, within its
 * timeout, a remembered failure retried) when no model is configured. Rejects with HermesError
 * `auth_required` naming the endpoint and its `/models` URL when the list is empty or cannot be
 * fetched, and like `resolveProvider` otherwise.
 */
export async function resolveWithDiscovery(
  config: HermesConfig,
  env: NodeJS.ProcessEnv,
  home: string,
  catalog: ModelCatalog,
  target?: ModelTarget,
): Promise<DiscoveredProvider> {
  const resolution = resolveProviderOrDiscovery(config, env, home, target);
  if (!resolution.discovery) return { resolved: resolution.resolved };
  const { endpoint, message } = resolution.discovery;
  const listUrl = `${endpoint.baseUrl}/models`;
  const models = await catalog.liveModels(endpoint, { retryFailed: true });
  const first = models?.[0];
  if (!models || !first) {
    const why = models ? `its model list (${listUrl}) is empty` : `its model list (${listUrl}) could not be fetched`;
    throw new HermesError("auth_required", `${message.replace(/ Set model\.default/, ` ${capitalized(why)}. Set model.default`)}`);
  }
  const resolved = resolution.discovery.resolve(first.id);
  const notice =
    models.length === 1
      ? `No model is configured; using ${first.id}, the only model ${endpoint.baseUrl} lists.`
      : `No model is configured; using ${first.id}, the first of the ${models.length} models ${endpoint.baseUrl} lists (set model.default in config.yaml to choose another).`;
  return { resolved, notice };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
