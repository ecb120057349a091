/**
 * The process groups this agent started that may still have members, apart from the code that
 * spawns them (process-group.ts): what the server's exit hook needs, without loading
 * node:child_process at start-up.
 */
const liveGroups = new Set<number>();

/** Registers a group just spawned (its pgid is the leader's pid). */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
}

/** Forgets a group whose members are all gone. */
export function releaseGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Sends a signal to every member of the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILLs every tracked process group that may still be running: foreground commands,
 * background processes of every session. Synchronous, so it is safe in an `exit` handler; the
 * server calls it on exit (nothing here registers process hooks itself).
 */
export function killAllProcesses(): void {
  for (const pgid of [...liveGroups]) {
    signalGroup(pgid, "SIGKILL");
    liveGroups.delete(pgid);
  }
}

/** Groups currently tracked, for tests and diagnostics. */
export function trackedGroups(): number[] {
  return [...liveGroups];
}
