import type { ResolvedProvider } from "../llm/types.js";

/**
 * Where the resolved provider's API key comes from, in the words a user would fix it with:
 * `OPENROUTER_API_KEY` (an environment variable, e.g. from `$HERMES_HOME/.env`), or
 * `model.api_key in config.yaml`. Undefined when resolution used no key or does not say. Pure.
 */
export function keyHint(resolved: Pick<ResolvedProvider, "source">): string | undefined {
  const parts = resolved.source.split(";").map((part) => part.trim());
  for (const part of parts) {
    const env = /^(?:key|auto): env ([A-Za-z_][A-Za-z0-9_]*)$/.exec(part);
    if (env) return env[1];
    const config = /^key: ((?:model|providers\.[^\s;]+)\.api_key)$/.exec(part);
    if (config) return `${config[1]} in config.yaml`;
  }
  return undefined;
}
