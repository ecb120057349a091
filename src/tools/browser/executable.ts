import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * Which Chromium or Chrome the browser tools drive. Never a downloaded browser: the one the user
 * named, else one already installed.
 *
 * Order: `browser.executable_path` in config.yaml, then the `CHROME_PATH`,
 * `PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH` and `AGENT_BROWSER_EXECUTABLE_PATH` (Hermes' name)
 * environment variables, then the usual install paths (Debian/Ubuntu/Fedora, snap, Google's
 * packages, the macOS application bundles), then the same program names on PATH. A path named
 * explicitly (config or environment) that is not an executable file is reported as such, never
 * silently replaced by another browser.
 */
export type BrowserExecutable = { ok: true; path: string; source: string } | { ok: false; reason: string };

/** Is `path` an executable regular file? Injected by tests. */
export type ExecutableCheck = (path: string) => boolean;

export const EXPLICIT_ENV_NAMES = ["CHROME_PATH", "PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH", "AGENT_BROWSER_EXECUTABLE_PATH"] as const;

/** Program names looked up on PATH, in order. */
const PROGRAM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];

/** Install locations checked before PATH, in order. `~` is the user's home. */
const INSTALL_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/opt/google/chrome/chrome",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "~/Applications/Chromium.app/Contents/MacOS/Chromium",
];

/** The reason `/tools` shows when nothing is found. */
export const NO_BROWSER_REASON = "needs Chromium or Chrome: install one, or set browser.executable_path in config.yaml";

export const isExecutableFile: ExecutableCheck = (path) => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Finds the browser for `configured` (`browser.executable_path`) and `env`. Never throws; cheap
 * (a few `stat` calls), so availability checks may call it at every session start.
 */
export function findBrowserExecutable(
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
  check: ExecutableCheck = isExecutableFile,
  home: string = env.HOME ?? homedir(),
): BrowserExecutable {
  const explicit: Array<[string, string | undefined]> = [["browser.executable_path", configured], ...EXPLICIT_ENV_NAMES.map((name): [string, string | undefined] => [name, env[name]])];
  for (const [source, value] of explicit) {
    const path = value?.trim();
    if (!path) continue;
    const expanded = expandHome(path, home);
    if (isAbsolute(expanded) && check(expanded)) return { ok: true, path: expanded, source };
    const onPath = isAbsolute(expanded) ? undefined : findOnPath(expanded, env, check);
    if (onPath) return { ok: true, path: onPath, source };
    return { ok: false, reason: `${source} is set to ${path}, which is not an executable file (set it to your Chromium or Chrome)` };
  }
  for (const candidate of INSTALL_PATHS) {
    const path = expandHome(candidate, home);
    if (check(path)) return { ok: true, path, source: "installed" };
  }
  for (const name of PROGRAM_NAMES) {
    const path = findOnPath(name, env, check);
    if (path) return { ok: true, path, source: "PATH" };
  }
  return { ok: false, reason: NO_BROWSER_REASON };
}

function expandHome(path: string, home: string): string {
  return path === "~" || path.startsWith("~/") ? join(home, path.slice(1)) : path;
}

function findOnPath(name: string, env: NodeJS.ProcessEnv, check: ExecutableCheck): string | undefined {
  if (name.includes("/")) return undefined;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, name);
    if (check(path)) return path;
  }
  return undefined;
}
