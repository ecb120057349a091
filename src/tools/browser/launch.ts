/**
 * Starting the browser: playwright-core loaded on first use (never at start-up; it is a CommonJS
 * package, required at run time so the bundle leaves it outside), the system's Chromium or Chrome
 * launched headless behind the policy proxy with one fresh context. playwright-core never
 * downloads a browser; it only drives the executable named here.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, BrowserContext } from "playwright-core";
import { isSecretName } from "../../config/redact.js";

type Playwright = typeof import("playwright-core");

let playwright: Playwright | undefined;

/** playwright-core, required on first call. Throws when it is not installed. */
export function loadPlaywright(): Playwright {
  playwright ??= createRequire(import.meta.url)("playwright-core") as Playwright;
  return playwright;
}

export interface LaunchOptions {
  executablePath: string;
  headless: boolean;
  /** The policy proxy every connection goes through (`http://127.0.0.1:<port>`). */
  proxyUrl: string;
  timeoutMs: number;
}

/**
 * Chromium switches on top of Playwright's own: no GPU, no background traffic of its own (update
 * checks, sync, safe browsing pings), nothing that would bypass the proxy (QUIC, WebRTC UDP, DNS
 * prefetching, Chromium's implicit bypass of loopback and link-local hosts — forced here, not left
 * to Playwright, which skips it when `PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK` is set),
 * small /dev/shm tolerated.
 */
export function chromiumArgs(): string[] {
  return [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-pings",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--dns-prefetch-disable",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--proxy-bypass-list=<-loopback>",
  ];
}

/**
 * Whether Chromium's own sandbox cannot start here (root, containers, AppArmor-restricted user
 * namespaces), as Hermes decides it; elsewhere it is kept on.
 */
export function needsSandboxBypass(): boolean {
  if (typeof process.geteuid === "function" && process.geteuid() === 0) return true;
  if (existsSync("/.dockerenv")) return true;
  try {
    return readFileSync("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "utf8").trim() === "1";
  } catch {
    return false;
  }
}

/** The browser's environment: ours without anything secret-named (provider keys, tokens). */
export function browserEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !isSecretName(name)) out[name] = value;
  return out;
}

/**
 * Launches the browser and opens its one context: service workers blocked (they could fetch
 * outside the page's sight), downloads refused, a 1280×720 viewport. Playwright's signal handlers
 * are off (the agent's own shutdown closes the browser); its exit hook still kills a browser left
 * running when the process ends. Chromium's sandbox is on where it can start (retried without it
 * when it fails to). Rejects with Playwright's error when the browser cannot start.
 */
export async function launchBrowser(options: LaunchOptions): Promise<{ browser: Browser; context: BrowserContext }> {
  const { chromium } = loadPlaywright();
  const launch = (sandbox: boolean): Promise<Browser> =>
    chromium.launch({
      executablePath: options.executablePath,
      headless: options.headless,
      args: chromiumArgs(),
      chromiumSandbox: sandbox,
      proxy: { server: options.proxyUrl },
      env: browserEnv(),
      timeout: options.timeoutMs,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  const sandbox = !needsSandboxBypass();
  const browser = await launch(sandbox).catch((error: unknown) => {
    if (sandbox && /sandbox/i.test(String(error))) return launch(false);
    throw error;
  });
  try {
    const context = await browser.newContext({
      serviceWorkers: "block",
      acceptDownloads: false,
      viewport: { width: 1280, height: 720 },
    });
    return { browser, context };
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw error;
  }
}
