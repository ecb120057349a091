import { execFile } from "node:child_process";
import { canAccess } from "../../../shared/access.js";
import { delimiter, join } from "node:path";
import { SANDBOX_EXEC } from "./seatbelt.js";

/** Which confinement this machine offers, or why none. */
export type SandboxAvailability =
  | { kind: "bwrap"; path: string }
  | { kind: "seatbelt"; path: string }
  | { kind: "none"; reason: string };

let probed: Promise<SandboxAvailability> | undefined;

/**
 * What this machine can confine commands with, found once per process on first use (never at
 * start-up): bubblewrap on Linux, after a trial run that needs the same namespaces a real command
 * does (a distribution may ship bwrap but forbid unprivileged user namespaces); `sandbox-exec` on
 * macOS; nothing elsewhere. Never rejects.
 */
export function sandboxAvailability(): Promise<SandboxAvailability> {
  probed ??= probe();
  return probed;
}

/** Forgets the probe (tests that change PATH). */
export function resetSandboxProbe(): void {
  probed = undefined;
}

async function probe(): Promise<SandboxAvailability> {
  if (process.platform === "darwin") {
    return canAccess(SANDBOX_EXEC, "x") ? { kind: "seatbelt", path: SANDBOX_EXEC } : { kind: "none", reason: `${SANDBOX_EXEC} was not found` };
  }
  if (process.platform !== "linux") return { kind: "none", reason: `no sandbox is supported on ${process.platform}` };
  const bwrap = findOnPath("bwrap");
  if (!bwrap) return { kind: "none", reason: "bubblewrap (bwrap) is not installed; install the `bubblewrap` package" };
  const trial = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--", "true"];
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(bwrap, trial, { timeout: 10_000 }, (error, _stdout, stderr) => {
      resolve(error ? (stderr.trim() || error.message).split("\n")[0] : undefined);
    });
  });
  if (failure) return { kind: "none", reason: `bubblewrap cannot create a sandbox here (${failure}); user namespaces may be disabled` };
  return { kind: "bwrap", path: bwrap };
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (canAccess(candidate, "x")) return candidate;
  }
  return undefined;
}
