import type { AuthMethod, ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import { markDotenvCredentials } from "../config/agent-credentials.js";
import { loadDotenv } from "../config/dotenv.js";
import type { HomePaths } from "../config/paths.js";
import { redactSecrets, registerEnvSecrets } from "../config/redact.js";
import type { ConfigSource } from "../runtime/config-source.js";
import { HermesError } from "../shared/errors.js";

/** The terminal method: the client runs the agent again with `--setup` in a terminal. Never passed to `authenticate`. */
export const TERMINAL_SETUP_METHOD_ID = "hermes-setup";
/** The agent method that needs no terminal: a key in the environment or in `$HERMES_HOME/.env`. */
export const ENV_METHOD_ID = "hermes-env";

/** How to start the interactive setup as a separate process (Zed's legacy `_meta["terminal-auth"]` launch). */
export interface SetupLaunch {
  command: string;
  args: string[];
}

/** What `buildAuthMethods` needs to know about the agent and the client. */
export interface AuthMethodOptions {
  /** The provider config.yaml / the environment resolve to now, if any. */
  configuredProvider: string | undefined;
  /** The client's `initialize` capabilities (`auth.terminal`, `_meta["terminal-auth"]`). */
  clientCapabilities: ClientCapabilities | undefined;
  /** The command line of `--setup` for this process, carried as the method's `_meta["terminal-auth"]` when known. */
  setupLaunch?: SetupLaunch;
}

/**
 * Whether the client opted into terminal auth: `clientCapabilities.auth.terminal: true` (the
 * spec), or `clientCapabilities._meta["terminal-auth"]: true` (what Zed and the registry's check
 * send). `clientCapabilities.terminal` (the `terminal/*` methods) is a different thing and does not count.
 */
export function clientSupportsTerminalAuth(capabilities: ClientCapabilities | undefined): boolean {
  if (!capabilities || typeof capabilities !== "object") return false;
  if (capabilities.auth?.terminal === true) return true;
  const meta = capabilities._meta;
  return typeof meta === "object" && meta !== null && (meta as Record<string, unknown>)["terminal-auth"] === true;
}

/**
 * The `authMethods` of `initialize`, in this order: the configured provider's runtime method (when
 * a provider resolves), the agent method `hermes-env` (always: it works without a terminal), and
 * the terminal method `hermes-setup` (`args: ["--setup"]`) only for clients that opted into
 * terminal auth (`clientSupportsTerminalAuth`), as the spec requires. Pure.
 */
export function buildAuthMethods(options: AuthMethodOptions): AuthMethod[] {
  const { configuredProvider } = options;
  const methods: AuthMethod[] = [];
  if (configuredProvider) {
    methods.push({
      id: configuredProvider,
      name: `${configuredProvider} runtime credentials`,
      description: `Authenticate Hermes using the currently configured ${configuredProvider} runtime credentials.`,
    });
  }
  methods.push({
    id: ENV_METHOD_ID,
    name: "Use an API key from the environment",
    description:
      "Use a provider key set in the environment or in $HERMES_HOME/.env (e.g. OPENROUTER_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY), or the provider in $HERMES_HOME/config.yaml. Set one, then authenticate again.",
  });
  if (clientSupportsTerminalAuth(options.clientCapabilities)) {
    methods.push({
      id: TERMINAL_SETUP_METHOD_ID,
      type: "terminal",
      name: "Configure Hermes provider",
      description:
        "Open Hermes' interactive model/provider setup in a terminal. Use this when Hermes has not been configured on this machine yet.",
      args: ["--setup"],
      ...(options.setupLaunch ? { _meta: { "terminal-auth": { ...options.setupLaunch, label: "hermes-acp --setup" } } } : {}),
    });
  }
  return methods;
}

/**
 * `authenticate(methodId)`. Accepted ids (without case or surrounding spaces): `hermes-env`, the
 * configured provider's id, and `hermes-setup` (clients must not send it, but one that does after
 * running the setup gets the same check). It reads `$HERMES_HOME/.env` again (new variables only,
 * never overriding the environment; their values registered for redaction), then succeeds once a
 * provider resolves. Throws HermesError `auth_required` (-32000) naming what to set and where when
 * none does, or naming the known ids for any other id (the id it got echoed with secrets masked).
 * Fails closed: nothing is stored.
 */
export function authenticate(methodId: unknown, config: ConfigSource, paths: HomePaths): void {
  const id = typeof methodId === "string" ? methodId.trim().toLowerCase() : "";
  const before = config.configuredProvider();
  const known = new Set([ENV_METHOD_ID, TERMINAL_SETUP_METHOD_ID, ...(before ? [before.toLowerCase()] : [])]);
  if (!known.has(id)) {
    const ids = [...(before ? [before] : []), ENV_METHOD_ID];
    // A client may send anything here, a pasted key too: it is masked before it is echoed.
    const masked = typeof methodId === "string" ? redactSecrets(methodId) : "";
    const shown = typeof methodId === "string" ? JSON.stringify(masked.length > 80 ? `${masked.slice(0, 80)}…` : masked) : typeof methodId;
    throw new HermesError("auth_required", `Unknown authentication method ${shown}; use ${ids.map((one) => `"${one}"`).join(" or ")}.`);
  }
  rereadDotenv(config.env, paths.envFile);
  if (config.configuredProvider()) return;
  throw noProviderError(config, paths);
}

/** Loads variables `.env` gained since start-up (a user who just added a key), as bootstrap does. */
function rereadDotenv(env: NodeJS.ProcessEnv, envFile: string): void {
  markDotenvCredentials(loadDotenv(envFile, env));
  registerEnvSecrets(env);
}

/**
 * The -32000 answer when no provider resolves: config.yaml's own problem when it has one (a
 * provider named without its key, a broken file), else what to set and where.
 */
function noProviderError(config: ConfigSource, paths: HomePaths): HermesError {
  const reason = config.authRequiredError();
  const data = { envFile: paths.envFile, configFile: paths.configFile, variables: ["OPENROUTER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NOUS_API_KEY"] };
  if (!reason.message.startsWith("No model provider is configured")) return new HermesError("auth_required", redactSecrets(reason.message), { ...reason.data, ...data });
  return new HermesError(
    "auth_required",
    `No model provider is configured. Set OPENROUTER_API_KEY (or OPENAI_API_KEY, ANTHROPIC_API_KEY, NOUS_API_KEY, or another provider's key) ` +
      `in the environment or in ${paths.envFile}, or set model.provider / model.base_url in ${paths.configFile}, then authenticate again; ` +
      "in a terminal, `hermes-acp --setup` does it for you.",
    data,
  );
}
