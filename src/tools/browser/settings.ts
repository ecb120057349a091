import type { HermesConfig } from "../../config/schema.js";
import { urlPolicyFromConfig } from "../web/url-policy.js";
import type { BrowserUrlPolicy } from "./request-policy.js";

/** Seconds of the shortest navigation timeout (Hermes' MIN_OPEN_TIMEOUT): pages may be slow to load. */
const MIN_NAVIGATION_SECONDS = 60;

/** What the browser tools read from config.yaml (`browser:`, with the web URL policy). */
export interface BrowserSettings {
  executablePath: string | undefined;
  headless: boolean;
  /** Per action (click, type, snapshot…), in ms. */
  actionTimeoutMs: number;
  /** Per navigation, in ms: the action timeout, at least 60 s. */
  navigationTimeoutMs: number;
  /** An idle browser is closed after this many ms; 0 = never. */
  idleCloseMs: number;
  policy: BrowserUrlPolicy;
}

/**
 * The browser settings of `config`. Private addresses are allowed when `web.allow_private_urls`,
 * Hermes' `security.allow_private_urls` or `browser.allow_private_urls` says so; loopback (the
 * user's dev servers) when `browser.allow_localhost` (default on). Never throws.
 */
export function browserSettings(config: HermesConfig): BrowserSettings {
  const browser = config.browser;
  const web = urlPolicyFromConfig(config);
  const actionTimeoutMs = Math.round(browser.command_timeout * 1000);
  return {
    executablePath: browser.executable_path,
    headless: browser.headless,
    actionTimeoutMs,
    navigationTimeoutMs: Math.max(actionTimeoutMs, MIN_NAVIGATION_SECONDS * 1000),
    idleCloseMs: Math.round(browser.inactivity_timeout * 1000),
    policy: { web: { ...web, allowPrivate: web.allowPrivate || browser.allow_private_urls }, allowLocalhost: browser.allow_localhost },
  };
}
