/**
 * An exclusive flock(2) on a lock file: the lock Python programs (Python Hermes' memory tool) take
 * with `fcntl.flock`. Node has no flock, so a util-linux `flock` child holds it for us for as long
 * as we need it: it takes the lock, says so, and keeps it until we close its stdin (or this
 * process dies, which closes it too, so a crash never leaves the lock held).
 */
import { spawn } from "node:child_process";

/** The `flock` program is not on this machine (macOS, Windows, minimal containers): callers fall back to their own lock. */
let missing = process.platform === "win32";

export class FlockBusyError extends Error {
  constructor(readonly path: string) {
    super(`${path} stayed locked by another program`);
  }
}

/** The `flock` child was killed (a signal) before it said it held the lock: whether another program holds it is unknown. */
export class FlockStoppedError extends Error {
  constructor(
    readonly path: string,
    readonly signal: string,
  ) {
    super(`the flock program taking ${path} was stopped (${signal}) before it held the lock`);
  }
}

/**
 * Takes the exclusive flock on `path` (created when missing), waiting up to `timeoutMs`.
 * Resolves with a function that releases it (idempotent), or with undefined when no flock can be
 * taken here (no `flock` program, or it could not open the file — the caller's own write then
 * reports the real problem). Rejects with FlockBusyError when the lock stayed held, and with
 * FlockStoppedError when the child was killed while it waited (the lock may well be held: going on
 * without it would be writing under another program's write).
 */
export function holdFlock(path: string, timeoutMs: number): Promise<(() => void) | undefined> {
  if (missing) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const seconds = Math.max(0.01, timeoutMs / 1000).toFixed(2);
    const child = spawn("flock", ["--exclusive", "--timeout", seconds, "--conflict-exit-code", "75", path, "sh", "-c", "echo held; exec cat"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    let held = false;
    const release = (): void => {
      if (child.stdin.writable) child.stdin.end();
    };
    child.stdin.on("error", () => undefined);
    child.stdout.on("data", (data: Buffer) => {
      if (held || !data.toString().includes("held")) return;
      held = true;
      resolve(release);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") missing = true;
      resolve(undefined);
    });
    child.on("exit", (code, signal) => {
      if (held) return;
      if (code === 75) reject(new FlockBusyError(path));
      else if (signal) reject(new FlockStoppedError(path, signal));
      else resolve(undefined);
    });
  });
}
