import { constants } from "node:os";
import { AnsiStripper, HeadTailCollector } from "../process/output.js";
import { isGroupAlive, releaseGroup, signalGroup, spawnGroup, terminateGroup, type GroupSpawnSpec } from "../process/process-group.js";

/** How long output may keep draining after the shell exited (a process outside the group may hold the pipe). */
const DRAIN_MS = 2000;
/** setTimeout fires at once for delays past 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

export interface ForegroundOptions {
  /** Kill the group after this many milliseconds. */
  timeoutMs: number;
  /** Cancels the run: the group is killed at once. */
  signal: AbortSignal;
  /** Output cap in chars (first 40 % and last 60 % kept). */
  outputCap: number;
  /**
   * Called after each piece of output arrives, with a function giving the output so far (cleaned
   * and capped like the final one; call it sparingly). Not called after the promise resolves.
   */
  onOutput?: (soFar: () => string) => void;
  /**
   * false when the command runs in a sandbox: what it left running dies with the sandbox's own
   * init, which may still be leaving the group when the shell's exit is seen, so a left-over
   * group says nothing about the command. The group is still stopped either way.
   */
  reportStrays?: boolean;
}

export interface ForegroundOutcome {
  /** Merged stdout+stderr, ANSI stripped, truncated to the cap with a marker. */
  output: string;
  /** Exit code; 128 + signal number when a signal ended the shell; -1 when it never started. */
  exitCode: number;
  timedOut: boolean;
  interrupted: boolean;
  /** The shell's pid, which is also its process group id. */
  pgid: number | undefined;
  /** Set when the shell could not be started. */
  spawnError?: string;
  /** True when the command left processes in its group that were stopped when it ended. */
  strayProcessesStopped: boolean;
}

/**
 * Runs one command in its own process group with stdin from /dev/null and waits for it.
 * On timeout or cancellation the whole group gets SIGTERM, then SIGKILL shortly after, and the
 * promise resolves once the group is gone (bounded). Processes the command left behind in its
 * group after a normal end are stopped the same way, so no call leaves anything running.
 * Never rejects.
 */
export function runForeground(spec: Omit<GroupSpawnSpec, "stdin">, options: ForegroundOptions): Promise<ForegroundOutcome> {
  return new Promise((resolve) => {
    const collector = new HeadTailCollector(options.outputCap);
    const stripper = new AnsiStripper();
    let timedOut = false;
    let interrupted = false;
    let strayProcessesStopped = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: string | undefined;
    let killing: Promise<boolean> | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const child = spawnGroup({ ...spec, stdin: "ignore" });
    const pgid = child.pid;

    const stop = (): void => {
      if (pgid !== undefined) killing ??= terminateGroup(pgid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, Math.min(options.timeoutMs, MAX_TIMER_MS));
    const onAbort = (): void => {
      interrupted = true;
      stop();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });

    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => {
        collector.push(stripper.push(chunk));
        if (!settled) options.onOutput?.(() => collector.text());
      });
    }

    child.once("exit", (code, signal) => {
      exit = { code, signal };
      if (pgid !== undefined && !killing && options.reportStrays === false) {
        // The sandbox's init takes everything in it down as it exits; a kill makes sure of it
        // without the cost of looking the group up.
        signalGroup(pgid, "SIGKILL");
      } else if (pgid !== undefined && !killing && isGroupAlive(pgid)) {
        strayProcessesStopped = true;
        stop();
      }
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        void finish();
      }, DRAIN_MS);
      drainTimer.unref();
    });
    child.once("close", () => void finish());
    child.once("error", (error) => {
      spawnError = error.message;
      child.stdout?.destroy();
      child.stderr?.destroy();
      void finish();
    });

    async function finish(): Promise<void> {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal.removeEventListener("abort", onAbort);
      collector.push(stripper.flush());
      if (killing) await killing;
      else if (pgid !== undefined) releaseGroup(pgid);
      resolve({
        output: collector.text(),
        exitCode: exitCodeOf(exit, spawnError),
        timedOut,
        interrupted,
        pgid,
        ...(spawnError ? { spawnError } : {}),
        strayProcessesStopped,
      });
    }
  });
}

function exitCodeOf(exit: { code: number | null; signal: NodeJS.Signals | null } | undefined, spawnError: string | undefined): number {
  if (spawnError || !exit) return -1;
  if (exit.code !== null) return exit.code;
  return exit.signal ? 128 + (constants.signals[exit.signal] ?? 0) : -1;
}
