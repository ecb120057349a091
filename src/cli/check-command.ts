import { redactSecrets } from "../config/redact.js";
import { tryLoadConfig } from "../config/load.js";
import { ModelCatalog } from "../llm/catalog.js";
import { resolveWithDiscovery } from "../llm/model-discovery.js";
import { isHermesError } from "../shared/errors.js";
import { bootstrap } from "./bootstrap.js";
import type { HermesConfig } from "../config/schema.js";
import { sandboxAvailability } from "../tools/exec/sandbox/availability.js";

/**
 * `--check`: loads .env and config.yaml and resolves the provider (asking the endpoint's model list
 * when no model is configured, as `session/new` does). Prints `Hermes ACP check OK` and returns 0
 * when config is valid; prints what is wrong and returns 1 when it is broken. A missing provider
 * or model is reported as a warning, since the editor can still run the setup; so is a machine
 * without a sandbox (commands then run with approvals only, or not at all with
 * `sandbox.required`).
 */
export async function runCheck(): Promise<number> {
  const paths = bootstrap({ logFile: false });
  const loaded = tryLoadConfig(paths.home);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.error.message}\n`);
    return 1;
  }
  for (const line of await providerCheckLines(loaded.config, process.env, paths.home)) process.stderr.write(`${line}\n`);
  process.stderr.write(`${await sandboxLine(loaded.config.sandbox)}\n`);
  process.stdout.write("Hermes ACP check OK\n");
  return 0;
}

/**
 * What `--check` says about the provider: the model chosen from the endpoint's list (when none is
 * configured), then `provider: … (sources), model, endpoint, api[, pool size]`; or one
 * `warning: …` line when no provider or model can be used. Never names a key. Throws only for
 * errors other than HermesError `auth_required` (a base URL that is not http(s) is
 * `config_invalid`).
 */
export async function providerCheckLines(config: HermesConfig, env: NodeJS.ProcessEnv, home: string, catalog: ModelCatalog = new ModelCatalog()): Promise<string[]> {
  try {
    const { resolved, notice } = await resolveWithDiscovery(config, env, home, catalog);
    const pool = resolved.apiKeys && resolved.apiKeys.length > 1 ? `, ${resolved.apiKeys.length} keys in the pool` : "";
    return [
      ...(notice ? [notice] : []),
      // a base URL may carry user:password; --check prints to the terminal, not through the redacting logger
      redactSecrets(`provider: ${resolved.provider} (${resolved.source}), model: ${resolved.model}, endpoint: ${resolved.baseUrl}, api: ${resolved.apiMode}${pool}`),
    ];
  } catch (error) {
    if (!isHermesError(error, "auth_required")) throw error;
    return [`warning: ${error.message}`];
  }
}

/** One line on how commands will be confined here. */
async function sandboxLine(section: HermesConfig["sandbox"]): Promise<string> {
  if (section.mode === "off") return "sandbox: off (sandbox.mode: off); commands run with approvals only";
  const available = await sandboxAvailability();
  const network = section.network ? "network on" : "network cut";
  if (available.kind !== "none") return `sandbox: ${section.mode} with ${available.kind === "bwrap" ? "bubblewrap" : "Seatbelt"} (${available.path}), ${network}`;
  const fallback = section.required ? "commands will be refused (sandbox.required)" : "commands run with approvals only";
  return `warning: no sandbox: ${available.reason}; ${fallback}`;
}
