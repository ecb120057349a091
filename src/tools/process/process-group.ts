import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { releaseGroup, signalGroup, trackGroup } from "./live-groups.js";

export { killAllProcesses, releaseGroup, signalGroup, trackedGroups } from "./live-groups.js";

/**
 * Child processes that run in their own process group (pgid = the child's pid), so that one
 * signal reaches the shell and everything it started. Every live group is tracked (live-groups.ts)
 * so `killAllProcesses()` can stop them when the server exits.
 */

/** How long a group gets between SIGTERM and SIGKILL. */
export const TERMINATE_GRACE_MS = 500;
/** How long to wait for a SIGKILLed group to disappear before giving up. */
const KILL_WAIT_MS = 3000;
const POLL_MS = 20;


export interface GroupSpawnSpec {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** "pipe" gives the caller a writable stdin; "ignore" connects /dev/null (never the agent's stdin). */
  stdin: "pipe" | "ignore";
  /** Extra pipes after stderr (fd 3, 4, …), for a private channel to the child (`execute_code`). Default 0. */
  extraPipes?: number;
}

/**
 * Spawns a detached child (new session and process group) with stdout and stderr piped and
 * registers its group. The group stays registered until `releaseGroup` or `killAllProcesses`.
 * Spawn failures surface as the child's `error` event, as with `child_process.spawn`.
 */
export function spawnGroup(spec: GroupSpawnSpec): ChildProcess {
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: [spec.stdin, "pipe", "pipe", ...Array.from({ length: spec.extraPipes ?? 0 }, () => "pipe" as const)],
    windowsHide: true,
  });
  if (child.pid !== undefined) trackGroup(child.pid);
  return child;
}

/**
 * True while the group has a member that is not a zombie. `kill(-pgid, 0)` alone is not
 * enough: a member orphaned by the shell's death is re-parented to PID 1, and an init that
 * does not reap (as in some containers and micro-VMs) leaves it as a zombie forever. On Linux
 * the members are therefore looked up in /proc; elsewhere `kill(-pgid, 0)` decides.
 */
export function isGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const members = groupMembers(pgid);
  if (members === undefined) return true;
  return members.some((member) => member.state !== "Z" && member.state !== "X");
}

interface GroupMember {
  pid: number;
  state: string;
}

/** Members of a process group from /proc, or undefined when /proc is unavailable. */
function groupMembers(pgid: number): GroupMember[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const members: GroupMember[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid) members.push({ pid: Number(entry), state: fields[0] ?? "" });
  }
  return members;
}

/** True when this single process exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return true;
  }
}

/** Resolves once the group has no live member, or after `ms`; returns whether it is gone. */
export async function waitForGroupExit(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!isGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
}

/**
 * Stops the whole group: SIGTERM at once, SIGKILL after `graceMs` if anything is left, then
 * waits (bounded) for the members to disappear and unregisters the group. Never throws.
 * Returns true when the group is verifiably gone.
 */
export async function terminateGroup(pgid: number, graceMs = TERMINATE_GRACE_MS): Promise<boolean> {
  if (!signalGroup(pgid, "SIGTERM")) {
    releaseGroup(pgid);
    return true;
  }
  if (await waitForGroupExit(pgid, graceMs)) {
    releaseGroup(pgid);
    return true;
  }
  signalGroup(pgid, "SIGKILL");
  const gone = await waitForGroupExit(pgid, KILL_WAIT_MS);
  if (gone) releaseGroup(pgid);
  return gone;
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: tells a process from a later one with the same pid. */
  start: string;
}

/** Every live process from /proc (zombies left out); empty where /proc is unavailable. */
function processTable(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      table.push({ pid: Number(entry), ppid: Number(fields[1]), start: fields[19] ?? "" });
    } catch {
      // it ended while we looked
    }
  }
  return table;
}

/**
 * Adds to `known` (pid → start time) the live descendants of the processes in it, from one look
 * at /proc. A pid counts only while it is the process that was seen (same start time), so a pid
 * reused by an unrelated process never brings its children in.
 */
function addDescendants(known: Map<number, string>): void {
  const table = processTable();
  const seen = new Set(table.filter((entry) => known.get(entry.pid) === entry.start).map((entry) => entry.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of table) {
      if (!seen.has(entry.pid) && seen.has(entry.ppid)) {
        seen.add(entry.pid);
        known.set(entry.pid, entry.start);
        grew = true;
      }
    }
  }
}

/** The processes of `known` that are still the same processes (not a reused pid). */
function stillRunning(known: ReadonlyMap<number, string>): number[] {
  const live = new Map(processTable().map((entry) => [entry.pid, entry.start]));
  return [...known].filter(([pid, start]) => live.get(pid) === start).map(([pid]) => pid);
}

function signalEach(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * `terminateGroup` for a running program that may start processes outside its group (in
 * sessions or groups of their own, as an agent does for its commands): its descendants are
 * looked up in /proc first (and again during the grace period, while their parents still hold
 * them) and get the same SIGTERM, then SIGKILL. Call it only while `pid` has not been reaped (its
 * `exit` not seen), so the pid is still the program's. A process that left the tree before it
 * was seen (re-parented to init) is not found. Without /proc this is `terminateGroup`. Never throws.
 */
export async function terminateTree(pid: number, graceMs = TERMINATE_GRACE_MS): Promise<boolean> {
  const root = processTable().find((entry) => entry.pid === pid);
  const tree = new Map<number, string>(root ? [[pid, root.start]] : []);
  const descendants = (): number[] => {
    addDescendants(tree);
    return stillRunning(tree).filter((member) => member !== pid);
  };
  signalEach(descendants(), "SIGTERM");
  const gone = terminateGroup(pid, graceMs);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && descendants().length > 0) await delay(POLL_MS);
  signalEach(descendants(), "SIGKILL");
  return gone;
}
