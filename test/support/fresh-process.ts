import { spawnSync } from "node:child_process";

/**
 * Runs `script` (ES module source; TypeScript imports resolve through tsx, relative to the
 * repository root) in a fresh Node process, for what only a process that has loaded nothing yet
 * can show (module loads, once-per-process costs). Answers the JSON of its last stdout line.
 * Throws, with what the child wrote to stderr, when it wrote anything there or exited non-zero.
 */
export function runInFreshProcess(script: string): unknown {
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: process.cwd(), encoding: "utf8" });
  if (run.status !== 0 || run.stderr !== "") throw new Error(`the fresh process failed (exit ${run.status ?? run.signal}):\n${run.stderr}`);
  const lines = run.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "") as unknown;
}
