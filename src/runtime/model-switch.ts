import type { HermesConfig } from "../config/schema.js";
import { parseModelId } from "../llm/catalog.js";
import { customSlug, detectProvider, knownProviderNames, namedProviderNames, resolveProvider, type ModelTarget } from "../llm/resolve.js";
import type { ResolvedProvider } from "../llm/types.js";
import { HermesError } from "../shared/errors.js";

/**
 * Resolves a model picker value or a `/model` argument: `provider:model` when the part before the
 * first colon names a built-in provider, a preset (id or alias) or an enabled named entry
 * (`providers:` / `custom_providers:`; `ollama:qwen3:8b` is ollama + `qwen3:8b`); Hermes' spelling
 * `custom:<name>:<model>` for a named entry (its name or slug, any case); otherwise a model on
 * `current`'s provider (else the configured one). On the configured provider the configured
 * endpoint is kept; another provider is resolved as if `model.provider` named it (see
 * `resolveProvider`'s target). Any model name is accepted: checking it against the catalog is the
 * caller's choice.
 *
 * Throws HermesError `invalid_params` naming the value when it is empty, its provider is not
 * supported, or the provider cannot be used (its message says which key to set); `config_invalid`
 * for a base URL that is not http(s).
 */
export function resolveModelChoice(
  config: HermesConfig,
  env: NodeJS.ProcessEnv,
  home: string,
  value: string,
  current?: ResolvedProvider,
): ResolvedProvider {
  const trimmed = value.trim();
  if (!trimmed) throw new HermesError("invalid_params", "No model given: use provider:model or a model name.");
  const known = knownProviderNames(config);
  if (current) known.push(current.provider);
  const target = customTarget(namedProviderNames(config), trimmed) ??
    parseModelId(trimmed, known) ?? {
      provider: current?.provider ?? detectProvider(config, env) ?? "auto",
      model: trimmed,
    };
  try {
    return resolveProvider(config, env, home, target);
  } catch (error) {
    if (error instanceof HermesError && error.code === "auth_required") {
      throw new HermesError("invalid_params", `Cannot switch to ${JSON.stringify(trimmed)}: ${error.message}`);
    }
    throw error;
  }
}

/** `custom:<name>:<model>` when `<name>` (or its slug) names one of the `named` entries; undefined otherwise. */
function customTarget(named: readonly string[], value: string): ModelTarget | undefined {
  const match = /^custom:([^:]+):(.+)$/i.exec(value);
  if (!match) return undefined;
  const [, name = "", model = ""] = match;
  const provider = named.find((candidate) => customSlug(candidate) === customSlug(name));
  return provider && model.trim() ? { provider, model: model.trim() } : undefined;
}

/** `prompt` with its last `Model:` and `Provider:` lines replaced (appended when missing). */
export function withModelLines(prompt: string, model: string, provider: string): string {
  let result = prompt;
  for (const [label, value] of [["Model", model], ["Provider", provider]] as const) {
    const line = new RegExp(`^${label}: .*$`, "gm");
    const matches = [...result.matchAll(line)];
    const last = matches.at(-1);
    result =
      last?.index === undefined
        ? `${result}\n${label}: ${value}`
        : `${result.slice(0, last.index)}${label}: ${value}${result.slice(last.index + last[0].length)}`;
  }
  return result;
}
