import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants } from "node:os";
import type { DisposableState, ToolSessionState } from "../session-state.js";
import type { ProcessInfo, ProcessStatus } from "./details.js";
import { AnsiStripper, TailBuffer } from "./output.js";
import { isGroupAlive, releaseGroup, spawnGroup, terminateGroup, type GroupSpawnSpec } from "./process-group.js";

/** Chars of output kept per background process (the tail). */
export const PROCESS_OUTPUT_CAP = 200_000;
/** Most processes a session tracks; finished ones are pruned first. */
export const MAX_TRACKED_PROCESSES = 64;

/** How long output may keep draining after the process exited. */
const DRAIN_MS = 2000;

export type { ProcessInfo, ProcessStatus } from "./details.js";

/**
 * A background process started by `terminal(background=true)`: its own process group, a pipe
 * on stdin, stdout+stderr merged into a bounded tail buffer (ANSI stripped). When the shell
 * exits, anything it left in its group is stopped too, so a record's lifetime is its group's
 * (and a recycled group id can never be signalled later). Status turns from "running" only once
 * the output is drained, so a finished status always comes with the complete output.
 */
export class BackgroundProcess {
  readonly id: string;
  readonly pid: number;
  readonly startedAt = new Date();
  endedAt: Date | undefined;
  status: ProcessStatus = "running";
  exitCode: number | null = null;
  signal: string | null = null;
  readonly output = new TailBuffer(PROCESS_OUTPUT_CAP);
  /** Absolute output offset up to which `poll` / `wait` have reported. */
  pollCursor = 0;
  /** Resolves once the process has ended and its output is drained. */
  readonly done: Promise<void>;
  private killRequested = false;

  constructor(
    private readonly child: ChildProcess,
    readonly command: string,
    readonly cwd: string,
    /** True when the process runs inside the OS sandbox (text sent to it is checked accordingly). */
    readonly sandboxed: boolean = false,
  ) {
    this.id = `proc_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    this.pid = child.pid ?? -1;
    const stripper = new AnsiStripper();
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => this.output.append(stripper.push(chunk)));
    }
    // A closed pipe must not crash the agent when the model writes after the process ended.
    child.stdin?.on("error", () => {});
    this.done = new Promise((resolve) => {
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      const settle = (): void => {
        clearTimeout(drainTimer);
        this.output.append(stripper.flush());
        this.finish(exit?.code ?? null, exit?.signal ?? null);
        resolve();
      };
      child.once("exit", (code, signal) => {
        exit = { code, signal };
        // Stop whatever the shell left in its group, so the group ends with the process.
        if (this.pid > 0 && isGroupAlive(this.pid)) void terminateGroup(this.pid);
        else if (this.pid > 0) releaseGroup(this.pid);
        // A process outside the group may still hold the pipes; do not wait for it forever.
        drainTimer = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          settle();
        }, DRAIN_MS);
        drainTimer.unref();
      });
      child.once("close", settle);
      child.once("error", (error) => {
        this.output.append(`[failed to start: ${error.message}]\n`);
        exit = { code: 127, signal: null };
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle();
      });
    });
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.endedAt) return;
    if (this.pid > 0 && !isGroupAlive(this.pid)) releaseGroup(this.pid);
    this.endedAt = new Date();
    this.signal = signal;
    this.exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : -1);
    this.status = this.killRequested ? "killed" : "exited";
  }

  get running(): boolean {
    return this.status === "running";
  }

  /** Whether stdin can still take data. */
  get stdinOpen(): boolean {
    const stdin = this.child.stdin;
    return this.running && !!stdin && stdin.writable && !stdin.writableEnded;
  }

  /** Writes to stdin; resolves false when stdin is closed or the write fails. */
  write(data: string): Promise<boolean> {
    const stdin = this.child.stdin;
    if (!this.stdinOpen || !stdin) return Promise.resolve(false);
    return new Promise((resolve) => stdin.write(data, (error) => resolve(!error)));
  }

  /** Closes stdin (EOF for the process); false when it was already closed. */
  closeStdin(): boolean {
    if (!this.stdinOpen) return false;
    this.child.stdin?.end();
    return true;
  }

  /** Kills the whole process group (SIGTERM, then SIGKILL) and waits for the end. Never throws. */
  async kill(): Promise<void> {
    if (this.running) {
      this.killRequested = true;
      if (this.pid > 0) await terminateGroup(this.pid);
    }
    await this.done;
  }

  info(now = Date.now()): ProcessInfo {
    const end = this.endedAt?.getTime() ?? now;
    return {
      session_id: this.id,
      pid: this.pid,
      command: this.command,
      cwd: this.cwd,
      status: this.status,
      exit_code: this.exitCode,
      signal: this.signal,
      started_at: this.startedAt.toISOString(),
      ended_at: this.endedAt?.toISOString() ?? null,
      runtime_seconds: Math.round((end - this.startedAt.getTime()) / 100) / 10,
      output_chars: this.output.end,
    };
  }
}

/**
 * The background processes of one session. Lives in the session's ToolSessionState; disposing
 * it (session end) kills every process group it started.
 */
export class ProcessRegistry implements DisposableState {
  private readonly processes = new Map<string, BackgroundProcess>();
  private disposed = false;

  /**
   * Spawns `spec` detached with a stdin pipe and tracks it. Returns an error message instead
   * when the session is closed or already tracks the maximum number of running processes.
   */
  start(spec: Omit<GroupSpawnSpec, "stdin">, command: string, options: { sandboxed?: boolean } = {}): BackgroundProcess | { error: string } {
    if (this.disposed) return { error: "the session is closed" };
    if (this.processes.size >= MAX_TRACKED_PROCESSES) this.pruneFinished();
    if (this.processes.size >= MAX_TRACKED_PROCESSES) {
      return { error: `too many background processes (${MAX_TRACKED_PROCESSES}); kill some with process(action="kill") first` };
    }
    const child = spawnGroup({ ...spec, stdin: "pipe" });
    const record = new BackgroundProcess(child, command, spec.cwd, options.sandboxed ?? false);
    this.processes.set(record.id, record);
    return record;
  }

  get(id: string): BackgroundProcess | undefined {
    return this.processes.get(id);
  }

  /** All tracked processes, oldest first. */
  list(): BackgroundProcess[] {
    return [...this.processes.values()];
  }

  private pruneFinished(): void {
    for (const record of this.list()) {
      if (this.processes.size < MAX_TRACKED_PROCESSES) return;
      if (!record.running) this.processes.delete(record.id);
    }
  }

  /** Kills every process of the session (process groups) and forgets them. Never throws. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const records = this.list();
    this.processes.clear();
    await Promise.allSettled(records.map((record) => record.kill()));
  }
}

const REGISTRY_KEY = Symbol("hermes.process-registry");

/** The session's process registry, created on first use. */
export function processRegistry(state: ToolSessionState): ProcessRegistry {
  return state.get(REGISTRY_KEY, () => new ProcessRegistry());
}
