import { scanCommand } from "./segments.js";
import { writeTargets } from "./write-targets.js";

/**
 * The files a command line would write, as written (relative paths stay relative): redirect
 * targets, `tee`, `cp`/`mv` destinations, downloads… of every simple command in it, nested ones
 * included. What a session's commands wrote lets the detector recognise `bash c.sh` of a script
 * written in an earlier call. Pure; never throws.
 */
export function filesWrittenBy(command: string): string[] {
  try {
    return [...new Set(scanCommand(command).commands.flatMap((simple) => writeTargets(simple)))];
  } catch {
    return [];
  }
}
