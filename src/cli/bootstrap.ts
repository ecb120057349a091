import { markDotenvCredentials } from "../config/agent-credentials.js";
import { loadDotenv } from "../config/dotenv.js";
import { hermesHome, homePaths, type HomePaths } from "../config/paths.js";
import { redactSecrets, registerSecret } from "../config/redact.js";
import { log } from "../shared/logger.js";

const SECRET_ENV = /(_API_KEY|_TOKEN|_SECRET|PASSWORD)$/;

/**
 * Common start-up for every command: find HERMES_HOME, load its .env without overriding the
 * environment, register secret values for redaction, and send logs to stderr and logs/agent.log.
 * Cheap and synchronous apart from opening the log file.
 */
export function bootstrap(options: { logFile: boolean }): HomePaths {
  const paths = homePaths(hermesHome());
  log.setRedactor(redactSecrets);
  const loaded = loadDotenv(paths.envFile);
  markDotenvCredentials(loaded);
  for (const [key, value] of Object.entries(process.env)) {
    if (value && SECRET_ENV.test(key)) registerSecret(value);
  }
  if (options.logFile) log.logToFile(paths.logFile);
  log.debug(loaded.length ? `loaded ${loaded.length} variable(s) from ${paths.envFile}` : `no new variables from ${paths.envFile}`);
  return paths;
}
