import { markDotenvCredentials } from "../config/agent-credentials.js";
import { loadDotenv } from "../config/dotenv.js";
import { hermesHome, homePaths, type HomePaths } from "../config/paths.js";
import { redactSecrets, registerEnvSecrets } from "../config/redact.js";
import { log } from "../shared/logger.js";

/**
 * Common start-up for every command: find HERMES_HOME, load its .env without overriding the
 * environment, register secret values for redaction (every .env value, secret-named variables,
 * credential-URL passwords), and send logs to stderr and logs/agent.log.
 * Cheap and synchronous apart from opening the log file.
 */
export function bootstrap(options: { logFile: boolean }): HomePaths {
  const paths = homePaths(hermesHome());
  log.setRedactor(redactSecrets);
  const loaded = loadDotenv(paths.envFile);
  markDotenvCredentials(loaded);
  registerEnvSecrets(process.env);
  if (options.logFile) log.logToFile(paths.logFile);
  log.debug(loaded.length ? `loaded ${loaded.length} variable(s) from ${paths.envFile}` : `no new variables from ${paths.envFile}`);
  return paths;
}
