import { isSecretName } from "./redact.js";

/**
 * Names of environment variables that hold the agent's own credentials beyond the well-known
 * provider keys: secret-looking variables loaded from `$HERMES_HOME/.env`, and the `key_env`
 * variables of configured providers. Commands the model runs never see them.
 */
const names = new Set<string>();

/** Marks variables as the agent's credentials; only secret-looking names from `.env` should be passed. */
export function markAgentCredentials(variableNames: Iterable<string>): void {
  for (const name of variableNames) names.add(name);
}

/** Marks the secret-looking ones among variables loaded from `$HERMES_HOME/.env`. */
export function markDotenvCredentials(loaded: Iterable<string>): void {
  markAgentCredentials([...loaded].filter(isSecretName));
}

export function agentCredentialNames(): ReadonlySet<string> {
  return names;
}
