import { statSync } from "node:fs";
import type { SandboxPlan } from "./policy.js";

/** Kernel interfaces in a fresh /proc that root could write to reach the host (core_pattern, sysrq). */
const PROC_READ_ONLY = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"];

/**
 * The bwrap argv (without the program) that runs `file args` confined by `plan`:
 * - the whole file system read-only, then each mount of the plan in order (writable binds,
 *   read-only binds; a hidden folder becomes an empty read-only tmpfs with mode 000, a hidden
 *   file the unreadable stub);
 * - a fresh `/dev` and, in a new PID namespace, a fresh `/proc` whose kernel interfaces are
 *   read-only (the agent, its environment and its other children are invisible);
 * - `--unshare-net` when the network is cut (only an unconnected loopback is left);
 * - `--die-with-parent` (the command dies with the agent, even a SIGKILLed one), every capability
 *   dropped. Not `--new-session`: it moves the sandbox's init out of the process group, and a
 *   group kill in the first milliseconds (a cancel right after the start, before bwrap has armed
 *   its parent-death signal) would then leave the command running. Commands get no terminal
 *   (stdin is /dev/null, the group has no controlling tty), so there is nothing to inject into.
 * Pure; `stub` is an unreadable empty file (see `hiddenFileStub`).
 */
export function bwrapArgs(plan: SandboxPlan, command: { file: string; args: readonly string[]; cwd: string }, stub: string): string[] {
  // The stub's folder is the agent's temp folder, which the plan already mounts read-only.
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const path of PROC_READ_ONLY) args.push("--ro-bind-try", path, path);
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (!plan.network) args.push("--unshare-net");
  args.push("--die-with-parent", "--cap-drop", "ALL");
  for (const mount of plan.mounts) {
    if (mount.access === "writable") args.push("--bind", mount.path, mount.path);
    else if (mount.access === "read-only") args.push("--ro-bind", mount.path, mount.path);
    else if (isDirectory(mount.path)) args.push("--perms", "0000", "--tmpfs", mount.path, "--remount-ro", mount.path);
    else args.push("--ro-bind", stub, mount.path);
  }
  args.push("--chdir", command.cwd, "--", command.file, ...command.args);
  return args;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
