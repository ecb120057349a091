import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Files and folders inside a Hermes home. All paths are absolute when `home` is. */
export interface HomePaths {
  home: string;
  configFile: string;
  envFile: string;
  stateDb: string;
  logsDir: string;
  logFile: string;
  soulFile: string;
}

/**
 * The Hermes home folder: `$HERMES_HOME` when set and non-empty, else `~/.hermes`.
 * A leading `~` is expanded to the user's home directory; the result is absolute
 * (a relative `$HERMES_HOME` resolves against the current directory). Never touches the disk.
 */
export function hermesHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.HERMES_HOME?.trim();
  if (!configured) return join(homedir(), ".hermes");
  return resolve(expandTilde(configured));
}

/** The well-known paths under `home`. Never touches the disk. */
export function homePaths(home: string): HomePaths {
  const logsDir = join(home, "logs");
  return {
    home,
    configFile: join(home, "config.yaml"),
    envFile: join(home, ".env"),
    stateDb: join(home, "state.db"),
    logsDir,
    logFile: join(logsDir, "agent.log"),
    soulFile: join(home, "SOUL.md"),
  };
}

function expandTilde(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homedir(), path.slice(2));
  return path;
}
