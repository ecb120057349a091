import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { DisposableState, ToolSessionState } from "../session-state.js";
import { agentTempRoot } from "../exec/agent-temp.js";

/**
 * How the terminal's shell state persists between calls of one session.
 *
 * Each command runs in a fresh `bash -c` (in its own process group). The script first restores
 * the session's exported variables from a snapshot (`export -p` output), then `eval`s the
 * command, and an EXIT trap writes `$PWD` and `export -p` to per-call files. After a normal
 * end the runner adopts them as the session's new cwd and snapshot; after a timeout or a cancel
 * the previous state stays. A fresh shell per call was chosen over one long-lived bash because
 * cancellation must kill the whole process group at once: with a persistent shell, the shell
 * itself would either die with the group (losing the state anyway) or need job control to put
 * each command in its own group, and a killed command could leave the shell mid-line. Here
 * every call is independent, a killed call cannot corrupt the next one, and nothing lingers.
 *
 * Persisted: cwd and exported variables (so `cd`, `export`, `source venv/bin/activate` carry
 * over). Not persisted: unexported variables, functions, aliases, shell options.
 */
export class ShellState implements DisposableState {
  /** The remembered cwd; undefined until a command changed it (then the session cwd applies). */
  cwd: string | undefined;
  private dir: string | undefined;
  private snapshot: string | undefined;
  private calls = 0;

  /** The session's private temp folder for snapshots, created on first use. */
  private folder(): string {
    this.dir ??= mkdtempSync(path.join(agentTempRoot(), "shell-"));
    return this.dir;
  }

  /** The cwd the next command starts in: the remembered one if it still exists, else `sessionCwd`. */
  startCwd(sessionCwd: string): { cwd: string; note?: string } {
    if (this.cwd && this.cwd !== sessionCwd) {
      if (isDirectory(this.cwd)) return { cwd: this.cwd };
      const gone = this.cwd;
      this.cwd = undefined;
      return { cwd: sessionCwd, note: `[previous working directory ${gone} no longer exists; back in ${sessionCwd}]` };
    }
    return { cwd: sessionCwd };
  }

  /**
   * Paths a call writes its end state to (in a folder of its own, `callDir`), and the snapshot it
   * restores from. `fresh` starts from the spawn environment instead of the snapshot (a command
   * run outside the sandbox must not source what sandboxed commands could have written).
   */
  prepareCall(options: { fresh?: boolean } = {}): CallFiles {
    const folder = this.folder();
    const callDir = path.join(folder, `call-${++this.calls}`);
    mkdirSync(callDir, { mode: 0o700 });
    return {
      restoreFrom: options.fresh ? "" : (this.snapshot ?? ""),
      cwdOut: path.join(callDir, "cwd"),
      envOut: path.join(callDir, "env"),
      callDir,
    };
  }

  /** The snapshot a background process starts from ("" for none); it records nothing back. */
  backgroundFiles(options: { fresh?: boolean } = {}): CallFiles {
    return { restoreFrom: options.fresh ? "" : (this.snapshot ?? ""), cwdOut: "", envOut: "" };
  }

  /**
   * Adopts the state a call wrote on a normal end: exported variables always, the cwd only when
   * `keepCwd` is false (a per-command `workdir` does not move the session's shell). Missing or
   * unreadable files keep the old state.
   */
  adopt(files: CallFiles, options: { keepCwd?: boolean } = {}): void {
    try {
      const cwd = readFileSync(files.cwdOut, "utf8");
      if (!options.keepCwd && cwd && path.isAbsolute(cwd)) this.cwd = cwd;
    } catch {
      // the command ended without writing its state (killed, or exec'd away): keep the old state
    }
    try {
      statSync(files.envOut);
      const next = path.join(this.folder(), "env.sh");
      renameSync(files.envOut, next);
      this.snapshot = next;
    } catch {
      // keep the previous snapshot
    }
    this.discard(files);
  }

  /** Removes a call's files without adopting them. */
  discard(files: CallFiles): void {
    if (files.callDir) rmSync(files.callDir, { recursive: true, force: true });
  }

  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.snapshot = undefined;
  }
}

export interface CallFiles {
  /** Snapshot to source before the command; "" for none (the spawn environment applies). */
  restoreFrom: string;
  /** Where the EXIT trap writes `$PWD`; "" to not record. */
  cwdOut: string;
  /** Where the EXIT trap writes `export -p`; "" to not record. */
  envOut: string;
  /** The folder holding `cwdOut` and `envOut` (absent when nothing is recorded). */
  callDir?: string;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

const SHELL_STATE_KEY = Symbol("hermes.terminal.shell-state");

/** The session's shell state, created on first use. */
export function shellState(state: ToolSessionState): ShellState {
  return state.get(SHELL_STATE_KEY, () => new ShellState());
}

/**
 * The bash script every command runs in. Arguments (after `$0`): snapshot to restore, cwd
 * output file, env output file, session id, command. The command is `eval`ed, so a syntax
 * error in it is reported as exit code 2 instead of breaking the wrapper, and `exit` in it
 * still runs the trap. stderr is merged into stdout so the order of lines is kept. The
 * wrapper is one line so bash's messages about the command carry the command's own line
 * numbers.
 */
export const WRAPPER_SCRIPT = [
  "exec 2>&1",
  "__hermes_restore=$1 __hermes_cwd_out=$2 __hermes_env_out=$3 __hermes_sid=$4 __hermes_cmd=$5",
  'if [ -n "$__hermes_restore" ] && [ -r "$__hermes_restore" ]; then unset $(compgen -e) 2>/dev/null; . "$__hermes_restore" >/dev/null 2>&1; fi',
  'export HERMES_SESSION_ID="$__hermes_sid"',
  "unset __hermes_restore __hermes_sid",
  `if [ -n "$__hermes_cwd_out" ]; then trap '__hermes_rc=$?; { printf "%s" "$PWD" >"$__hermes_cwd_out"; export -p >"$__hermes_env_out"; } 2>/dev/null; exit $__hermes_rc' EXIT; fi`,
  "set --",
  'eval "$__hermes_cmd"',
].join("; ");

/** argv for bash running `command` with the wrapper. */
export function wrapperArgs(files: CallFiles, sessionId: string, command: string): string[] {
  return ["--noprofile", "--norc", "-c", WRAPPER_SCRIPT, "bash", files.restoreFrom, files.cwdOut, files.envOut, sessionId, command];
}
