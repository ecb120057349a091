import { isInside, type SandboxMount, type SandboxPlan } from "./policy.js";

/** macOS's sandbox front end; present on every macOS install. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/**
 * The base of every profile: deny by default, then what any program needs to start and run
 * (exec, fork, signals and process info within the sandbox, sysctl and Mach look-ups, POSIX IPC,
 * pseudo-terminals, /dev/null and /dev/tty writes, user preferences).
 */
const BASE = [
  "(version 1)",
  "(deny default)",
  "(allow process-exec)",
  "(allow process-fork)",
  "(allow signal (target same-sandbox))",
  "(allow process-info* (target same-sandbox))",
  "(allow sysctl-read)",
  "(allow mach-lookup)",
  "(allow ipc-posix-sem)",
  "(allow ipc-posix-shm)",
  "(allow pseudo-tty)",
  "(allow user-preference-read)",
  '(allow file-ioctl (literal "/dev/tty") (literal "/dev/null"))',
  '(allow file-write-data (literal "/dev/null") (literal "/dev/tty") (literal "/dev/zero") (literal "/dev/dtracehelper"))',
];

/** An SBPL string literal. */
function quote(path: string): string {
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** Matches `path` and everything below it. */
function subpath(path: string): string {
  return `(subpath ${quote(path)})`;
}

/**
 * The Seatbelt profile equivalent to `plan`'s layered mounts. Seatbelt has no layers, so each
 * writable mount becomes its own allow rule that excludes the non-writable mounts deeper inside
 * it (a writable mount deeper still has its own rule); reads are allowed everywhere except under
 * hidden mounts. Network is allowed only when `plan.network`. Pure.
 *
 * It cannot run on Linux; its unit tests check the rules it writes.
 */
export function seatbeltProfile(plan: SandboxPlan): string {
  const lines = [...BASE];
  const hidden = plan.mounts.filter((mount) => mount.access === "hidden");
  const reads = hidden.length === 0 ? "(allow file-read*)" : `(allow file-read* (require-all (subpath "/") ${hidden.map((m) => `(require-not ${subpath(m.path)})`).join(" ")}))`;
  lines.push(reads);
  for (const mount of plan.mounts.filter((m) => m.access === "writable")) lines.push(writeRule(mount, plan.mounts));
  if (plan.network) lines.push("(allow network*)", "(allow system-socket)");
  else lines.push('(allow network* (remote unix-socket (path-regex #"^/private/var/run/mDNSResponder$")))');
  return `${lines.join("\n")}\n`;
}

function writeRule(mount: SandboxMount, mounts: readonly SandboxMount[]): string {
  const deeper = mounts.filter((other) => other.access !== "writable" && other.path !== mount.path && isInside(other.path, mount.path));
  if (deeper.length === 0) return `(allow file-write* ${subpath(mount.path)})`;
  return `(allow file-write* (require-all ${subpath(mount.path)} ${deeper.map((m) => `(require-not ${subpath(m.path)})`).join(" ")}))`;
}

/** argv of `sandbox-exec` running `file args` under `plan`. */
export function seatbeltArgs(plan: SandboxPlan, command: { file: string; args: readonly string[] }): string[] {
  return ["-p", seatbeltProfile(plan), "--", command.file, ...command.args];
}
