import type { LogoutResponse } from "@agentclientprotocol/sdk/unstable";
import type { Runtime } from "../runtime/runtime.js";
import { log } from "../shared/logger.js";

/**
 * `logout` (advertised as `agentCapabilities.auth.logout`): forgets the model-provider
 * credentials Hermes stores (`Runtime.forgetCredentials`: provider keys in `$HERMES_HOME/.env`
 * and `model.api_key` in config.yaml; hand-written `providers:` keys and variables set outside
 * Hermes are kept). `LogoutResponse` has no fields of its own, so the confirmation travels in
 * `_meta.hermes`: `forgotten` and `kept` (one line each, never a value) and a one-line `message`.
 * Idempotent: with nothing stored, `forgotten` is empty. Never throws.
 */
export function handleLogout(runtime: Runtime): LogoutResponse {
  const { forgotten, kept } = runtime.config.forgetCredentials();
  const message = forgotten.length
    ? `Logged out: forgot ${forgotten.length} stored credential${forgotten.length === 1 ? "" : "s"}. Run \`hermes acp --setup\` or authenticate again to use a provider.`
    : "Logged out: Hermes had no stored credentials to forget.";
  log.info(`${message}${forgotten.length ? ` (${forgotten.join("; ")})` : ""}${kept.length ? `; kept: ${kept.join("; ")}` : ""}`);
  return { _meta: { hermes: { forgotten, kept, message } } };
}
