/**
 * Hardline rules: commands that are never run, whatever the approval settings, because nothing
 * recovers from them. Kept deliberately small; recoverable damage belongs in
 * `dangerous-rules.ts`. Order matters only for which key is reported when several match.
 */
import { commandName, parseArgs } from "./argv.js";
import { classifyDeleteTarget, isRawDevice, type ProtectedTarget } from "./paths.js";
import type { CommandRule, Script, SimpleCommand } from "./simple-command.js";
import { writeTargets } from "./write-targets.js";

export interface RmInvocation {
  recursive: boolean;
  noPreserveRoot: boolean;
  targets: string[];
}

/** How an `rm` treats its arguments (GNU: options may follow operands); undefined for other commands. */
export function rmInvocation(command: SimpleCommand): RmInvocation | undefined {
  if (command.name !== "rm") return undefined;
  const parsed = parseArgs(command.args);
  const recursive = parsed.shorts.has("r") || parsed.shorts.has("R") || [...parsed.longs].some((long) => long.length > 0 && "recursive".startsWith(long));
  return { recursive, noPreserveRoot: parsed.longs.has("no-preserve-root"), targets: parsed.operands };
}

function deletesProtected(command: SimpleCommand, target: ProtectedTarget): boolean {
  const rm = rmInvocation(command);
  if (!rm) return false;
  if (target === "root" && rm.noPreserveRoot) return true;
  return rm.recursive && rm.targets.some((path) => classifyDeleteTarget(path) === target);
}

const DISKUTIL_ERASE = /^(?:erase(?:disk|volume)|zerodisk|randomdisk|secureerase|reformat|partitiondisk)$/i;

function formatsFilesystem({ name, args }: SimpleCommand): boolean {
  if (/^mkfs(?:\..+)?$/.test(name) || name === "mke2fs") return true;
  if (name === "mkswap" || /^newfs(?:_.+)?$/.test(name)) return args.some(isRawDevice);
  if (name === "diskutil") return args.some((arg) => DISKUTIL_ERASE.test(arg));
  return false;
}

const WIPERS = new Set(["shred", "blkdiscard", "wipefs", "sgdisk", "nvme"]);

function wipesDevice({ name, args }: SimpleCommand): boolean {
  if (!WIPERS.has(name) || !args.some(isRawDevice)) return false;
  const parsed = parseArgs(args);
  switch (name) {
    case "shred":
    case "blkdiscard":
      return true;
    case "wipefs":
      return (parsed.shorts.has("a") || parsed.longs.has("all")) && !parsed.shorts.has("n") && !parsed.longs.has("no-act");
    case "sgdisk":
      return parsed.shorts.has("Z") || parsed.shorts.has("o") || parsed.longs.has("zap-all") || parsed.longs.has("clear");
    case "nvme":
      return args[0] === "format" || args[0] === "sanitize";
    default:
      return false;
  }
}

/** A function whose body calls itself at least twice (`:(){ :|:& };:`). */
function isForkBomb(command: SimpleCommand, script: Script): boolean {
  const fn = command.inFunction;
  if (fn === undefined || command.name !== commandName(fn)) return false;
  return script.commands.filter((other) => other.inFunction === fn && other.name === command.name).length >= 2;
}

/** `kill -1`, `kill -9 -1`, `kill -s KILL -1`, `kill -- -1`: signal every process. */
function killsEverything({ name, args }: SimpleCommand): boolean {
  if (name === "killall5") return true;
  if (name !== "kill") return false;
  if (args.length === 1 && args[0] === "-1") return true;
  let i = 0;
  if (args[0] === "-s" || args[0] === "-n") i = 2;
  else if (args[0] !== undefined && args[0] !== "--" && /^-(?:\d+|[A-Za-z][A-Za-z0-9+-]*)$/.test(args[0])) i = 1;
  return args.slice(i).includes("-1");
}

const POWER_VERBS = new Set(["poweroff", "reboot", "halt", "kexec", "soft-reboot"]);

function shutsDown({ name, args }: SimpleCommand): boolean {
  if (name === "shutdown" || name === "reboot" || name === "halt" || name === "poweroff") return true;
  if (name === "init" || name === "telinit") return ["0", "6"].includes(parseArgs(args).operands[0] ?? "");
  if (name === "systemctl" || name === "loginctl") return POWER_VERBS.has(parseArgs(args).operands[0] ?? "");
  return false;
}

export const HARDLINE_RULES: readonly CommandRule[] = [
  { key: "delete_root", description: "recursive delete of the root filesystem", matches: (c) => deletesProtected(c, "root") },
  { key: "delete_system_dir", description: "recursive delete of a system directory", matches: (c) => deletesProtected(c, "system") },
  { key: "delete_home", description: "recursive delete of the home directory", matches: (c) => deletesProtected(c, "home") },
  { key: "format_filesystem", description: "format a filesystem (mkfs)", matches: formatsFilesystem },
  { key: "raw_device_write", description: "write directly to a raw disk device", matches: (c) => writeTargets(c).some(isRawDevice) },
  { key: "wipe_device", description: "wipe a disk device", matches: wipesDevice },
  { key: "fork_bomb", description: "fork bomb", matches: isForkBomb },
  { key: "kill_all_processes", description: "kill every process (kill -1)", matches: killsEverything },
  { key: "shutdown", description: "shut down or reboot the machine", matches: shutsDown },
];
