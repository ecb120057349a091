import { readdirSync, readFileSync } from "node:fs";
import { findBrowserExecutable } from "../../src/tools/browser/executable.js";

/**
 * Whether the browser suites can run: true when a Chromium or Chrome is installed. In CI a
 * missing browser is a failure (`.ci/run` installs Debian's `chromium`); elsewhere the suites are
 * skipped with a message on stderr.
 */
export function chromiumUsable(): boolean {
  const found = findBrowserExecutable(undefined, process.env);
  if (found.ok) return true;
  if (process.env.CI) throw new Error(`the browser tests need Chromium in CI: ${found.reason}`);
  process.stderr.write(`skipping browser tests: ${found.reason}\n`);
  return false;
}

/**
 * Pids of live (not zombie) Chromium or Chrome processes whose parent is this process (the
 * browsers Playwright launched here; their own helpers are their children). Linux /proc only.
 */
export function browserChildren(parent: number = process.pid): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || Number(fields[1]) !== parent) continue;
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[0] ?? "";
      if (/chrom|chrome/i.test(argv0)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}
