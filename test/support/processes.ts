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
