import { readdirSync, readFileSync } from "node:fs";

/** Pids of live (not zombie) processes whose command line contains `sleep <marker>`. Linux /proc only. */
export function sleepers(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmdline.includes(`sleep ${marker}`) && state !== "Z") pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/**
 * Pids of live `sleep <marker>` processes themselves (argv[0] is sleep), not of the shells or
 * sandboxes whose command lines merely mention it: a test that waits for the command to really
 * run (past the sandbox's set-up) waits for these.
 */
export function sleepCommands(marker: string): number[] {
  return sleepers(marker).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return (argv[0] ?? "").split("/").pop() === "sleep";
    } catch {
      return false;
    }
  });
}
