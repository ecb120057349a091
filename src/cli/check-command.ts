import { tryLoadConfig } from "../config/load.js";
import { resolveProvider } from "../llm/resolve.js";
import { isHermesError } from "../shared/errors.js";
import { bootstrap } from "./bootstrap.js";

/**
 * `--check`: loads .env and config.yaml and resolves the provider. Prints `Hermes ACP check OK`
 * and returns 0 when config is valid; prints what is wrong and returns 1 when it is broken.
 * A missing provider is reported as a warning, since the editor can still run the setup.
 */
export function runCheck(): number {
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
  process.stdout.write("Hermes ACP check OK\n");
  return 0;
}
