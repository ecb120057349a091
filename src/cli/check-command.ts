import { tryLoadConfig } from "../config/load.js";
import { resolveProvider } from "../llm/resolve.js";
import { isHermesError } from "../shared/errors.js";
import { bootstrap } from "./bootstrap.js";
import type { HermesConfig } from "../config/schema.js";
import { sandboxAvailability } from "../tools/exec/sandbox/availability.js";

/**
 * `--check`: loads .env and config.yaml and resolves the provider. Prints `Hermes ACP check OK`
 * and returns 0 when config is valid; prints what is wrong and returns 1 when it is broken.
 * A missing provider is reported as a warning, since the editor can still run the setup; so is a
 * machine without a sandbox (commands then run with approvals only, or not at all with
 * `sandbox.required`).
 */
export async function runCheck(): Promise<number> {
  const paths = bootstrap({ logFile: false });
  const loaded = tryLoadConfig(paths.home);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.error.message}\n`);
    return 1;
  }
  try {
    const resolved = resolveProvider(loaded.config);
    process.stderr.write(`provider: ${resolved.provider} (${resolved.source}), model: ${resolved.model}, endpoint: ${resolved.baseUrl}\n`);
  } catch (error) {
    if (!isHermesError(error, "auth_required")) throw error;
    process.stderr.write(`warning: ${error.message}\n`);
  }
  process.stderr.write(`${await sandboxLine(loaded.config.sandbox)}\n`);
  process.stdout.write("Hermes ACP check OK\n");
  return 0;
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
