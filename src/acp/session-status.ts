import type { SessionConfigOption } from "@agentclientprotocol/sdk/unstable";
import type { Runtime } from "../runtime/runtime.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { sessionConfigOptions } from "./config-options.js";
import type { LiveSession } from "./session-manager.js";

/**
 * Sends `usage_update {used, size}` (estimated next request against the context window), with
 * `cost` (the session's total in USD) once any call's cost is known. Never throws.
 */
export function sendUsage(live: LiveSession): void {
  try {
    const { used, size } = live.session.contextUsage();
    const amount = live.session.costUsd;
    const cost = amount > 0 && Number.isFinite(amount) ? { cost: { amount: roundCost(amount), currency: "USD" } } : {};
    if (size > 0) live.updates.send({ sessionUpdate: "usage_update", used, size, ...cost });
  } catch (error) {
    log.warn(`usage estimate for ${live.session.id} failed: ${errorMessage(error)}`);
  }
}

/** Sends the session's whole config option list as `config_option_update`. */
export function sendConfigOptions(live: LiveSession, options: SessionConfigOption[]): void {
  live.updates.send({ sessionUpdate: "config_option_update", configOptions: options });
}

/**
 * After new / load / resume / fork has answered: `usage_update` (not for fork, as Hermes), then
 * the model list fetched from the providers in the background (never blocking the answer); when
 * it differs from the snapshot the answer carried, the options are sent again. Call it as the
 * handler's last step, like `advertiseCommands`.
 */
export function afterSessionOpened(live: LiveSession, runtime: Runtime, answered: SessionConfigOption[], options: { usage: boolean }): void {
  setImmediate(() => {
    if (options.usage) sendUsage(live);
    // One turn later: the answer is flushed by an immediate queued after this one, and the first
    // fetch loads Node's fetch (undici, ~40 ms), which must not hold the answer back.
    setImmediate(() => {
      void runtime.catalog().then((catalog) => {
        const fresh = sessionConfigOptions(live.session, catalog);
        if (JSON.stringify(fresh) !== JSON.stringify(answered)) sendConfigOptions(live, fresh);
      });
    });
  });
}

/** USD to 6 decimals (a millionth of a dollar), so float noise never reaches the client. */
export function roundCost(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}
