import type { HermesConfig } from "../../config/schema.js";
import { findBrowserExecutable } from "./executable.js";

/**
 * Why the browser tools cannot be offered (shown by `/tools`), or undefined when a Chromium or
 * Chrome is there to drive. Cheap: a few `stat` calls, no browser started.
 */
export function browserAvailability(env: NodeJS.ProcessEnv, config?: Partial<Pick<HermesConfig, "browser">>): string | undefined {
  const found = findBrowserExecutable(config?.browser?.executable_path, env);
  return found.ok ? undefined : found.reason;
}
