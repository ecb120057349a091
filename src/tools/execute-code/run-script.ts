import { constants } from "node:os";
import { Readable, Writable } from "node:stream";
import { AnsiStripper, HeadTailCollector } from "../process/output.js";
import { releaseGroup, signalGroup, spawnGroup, terminateGroup } from "../process/process-group.js";
import type { ExecSpec } from "../exec/confine.js";
import { REQUEST_FD, RESPONSE_FD } from "./hermes-tools-module.js";

/** How long output may keep draining after the interpreter exited (something it started may hold a pipe). */
const DRAIN_MS = 2000;
/** setTimeout fires at once for delays past 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

export interface ScriptRunOptions {
  /** The interpreter's invocation, already confined when it runs in the sandbox. */
  spec: ExecSpec;
  env: NodeJS.ProcessEnv;
  /** Kill the process group after this many milliseconds. */
  timeoutMs: number;
  /** The turn's cancellation: the group is killed at once. */
  signal: AbortSignal;
  stdoutCap: number;
  stderrCap: number;
  /**
   * Serves the private channel: `requests` (the script's fd 3) and `responses` (its fd 4). `stop`
   * fires when the run ends for any reason. Returns once the server has settled (after `stop`).
   */
  serve(requests: Readable, responses: Writable, stop: AbortSignal): Promise<void>;
}

export interface ScriptOutcome {
  /** stdout, ANSI stripped, capped (first 40 % and last 60 % kept). */
  stdout: string;
  /** stderr, likewise, with its own cap. */
  stderr: string;
  /** Exit code; 128 + signal number when a signal ended it; -1 when it never started. */
  exitCode: number;
  timedOut: boolean;
  interrupted: boolean;
  /** Set when the interpreter (or the sandbox) could not be started. */
  spawnError?: string;
}

/**
 * Runs a script in its own process group, stdin from /dev/null, with the channel's two pipes as
 * fds 3 and 4, and waits for it. On timeout or cancellation the whole group gets SIGTERM, then
 * SIGKILL shortly after; when the interpreter exits, whatever it left in the group is killed. In
 * every case the channel's `stop` fires (inner calls in flight are cancelled), and the promise
 * resolves once the channel has settled and the group is gone (bounded). Never rejects.
 */
export function runScript(options: ScriptRunOptions): Promise<ScriptOutcome> {
  return new Promise((resolve) => {
    const stdout = capture(options.stdoutCap);
    const stderr = capture(options.stderrCap);
    const stop = new AbortController();
    let timedOut = false;
    let interrupted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: string | undefined;
    let killing: Promise<boolean> | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const child = spawnGroup({ ...options.spec, env: options.env, stdin: "ignore", extraPipes: 2 });
    const pgid = child.pid;
    const requests = child.stdio[REQUEST_FD];
    const responses = child.stdio[RESPONSE_FD];
    const serving =
      requests instanceof Readable && responses instanceof Writable ? options.serve(requests, responses, stop.signal) : Promise.resolve();

    const kill = (): void => {
      stop.abort();
      if (pgid !== undefined) killing ??= terminateGroup(pgid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, Math.min(options.timeoutMs, MAX_TIMER_MS));
    const onAbort = (): void => {
      interrupted = true;
      kill();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });

    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => stdout.push(chunk));
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => stderr.push(chunk));

    child.once("exit", (code, signal) => {
      exit = { code, signal };
      stop.abort();
      // Whatever the script started dies with it (in the sandbox, its init takes it down too).
      if (pgid !== undefined && !killing) signalGroup(pgid, "SIGKILL");
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
      stop.abort();
      if (requests instanceof Readable) requests.destroy();
      if (responses instanceof Writable) responses.destroy();
      await serving;
      if (killing) await killing;
      else if (pgid !== undefined) releaseGroup(pgid);
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        exitCode: exitCodeOf(exit, spawnError),
        timedOut,
        interrupted,
        ...(spawnError ? { spawnError } : {}),
      });
    }
  });
}

/** A capped, ANSI-stripping collector for one stream. */
function capture(cap: number): { push(chunk: string): void; text(): string } {
  const collector = new HeadTailCollector(cap);
  const stripper = new AnsiStripper();
  return {
    push: (chunk) => collector.push(stripper.push(chunk)),
    text: () => {
      collector.push(stripper.flush());
      return collector.text();
    },
  };
}

function exitCodeOf(exit: { code: number | null; signal: NodeJS.Signals | null } | undefined, spawnError: string | undefined): number {
  if (spawnError || !exit) return -1;
  if (exit.code !== null) return exit.code;
  return exit.signal ? 128 + (constants.signals[exit.signal] ?? 0) : -1;
}
