import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxPlan } from "./policy.js";

/** Empty, unreadable stand-ins bound over hidden paths. */
export interface HiddenStubs {
  dir: string;
  file: string;
}

let stubs: HiddenStubs | undefined;

/**
 * Creates (once per process) an empty folder and an empty file with mode 000. Bound read-only over
 * a hidden path they make it unreadable: commands run with no capabilities, so even root is held
 * to the mode bits, and read-only means the stub cannot be changed from inside.
 */
export function hiddenStubs(): HiddenStubs {
  if (stubs) return stubs;
  const root = mkdtempSync(join(tmpdir(), "hermes-sandbox-"));
  const dir = join(root, "hidden-dir");
  const file = join(root, "hidden-file");
  mkdirSync(dir);
  writeFileSync(file, "");
  chmodSync(dir, 0o000);
  chmodSync(file, 0o000);
  stubs = { dir, file };
  process.once("exit", () => rmSync(root, { recursive: true, force: true }));
  return stubs;
}

/**
 * The bwrap argv (without the program) that runs `file args` confined by `plan`:
 * - the whole file system read-only, then each mount of the plan in order (writable binds,
 *   read-only binds, hidden paths covered by an unreadable stub);
 * - a fresh `/dev` and, in a new PID namespace, a fresh `/proc` (the agent, its environment and
 *   its other children are invisible);
 * - `--unshare-net` when the network is cut (only an unconnected loopback is left);
 * - `--die-with-parent` (the command dies with the agent, even a SIGKILLed one), `--new-session`
 *   (no terminal injection), every capability dropped.
 * Pure but for `stubs`, which the caller passes (see `hiddenStubs`).
 */
export function bwrapArgs(plan: SandboxPlan, command: { file: string; args: readonly string[]; cwd: string }, hidden: HiddenStubs): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-ipc", "--unshare-uts"];
  if (!plan.network) args.push("--unshare-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  for (const mount of plan.mounts) {
    if (mount.access === "writable") args.push("--bind", mount.path, mount.path);
    else if (mount.access === "read-only") args.push("--ro-bind", mount.path, mount.path);
    else args.push("--ro-bind", isDirectory(mount.path) ? hidden.dir : hidden.file, mount.path);
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
