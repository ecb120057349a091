import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { HermesConfig } from "../../config/schema.js";
import { errorMessage } from "../../shared/errors.js";
import { log } from "../../shared/logger.js";
import type { CheckpointRequest, ToolPorts } from "../../tools/ports.js";
import { GitError } from "./git.js";
import { CheckpointSkipped, CheckpointStore, type Checkpoint, type RestoreChange } from "./store.js";

/** Files a checkpoint's reason names before "and N more". */
const REASON_FILES = 3;
const MB = 1024 * 1024;

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Why a snapshot could not be taken, in words for the user. */
function describeFailure(error: unknown): string {
  if (error instanceof CheckpointSkipped) return error.message;
  if (error instanceof GitError && /ENOENT|spawn git/.test(error.stderr)) return "git is not installed";
  return errorMessage(error);
}

/**
 * One session's filesystem checkpoints (Hermes' `CheckpointManager`): off unless
 * `checkpoints.enabled`. The workspace is the session's folder (its real path); snapshots live in
 * `$HERMES_HOME/checkpoints/` (see CheckpointStore). At most one snapshot is taken per turn, before
 * the turn's first approved `write_file` / `patch` touching the workspace, so a checkpoint is the
 * state the turn started editing from. The root and the home folder are never snapshotted.
 */
export class SessionCheckpoints {
  readonly enabled: boolean;
  readonly workspace: string;
  private readonly store: CheckpointStore;
  private told = false;

  constructor(options: { hermesHome: string; cwd: string; config: HermesConfig }) {
    const settings = options.config.checkpoints;
    this.enabled = settings.enabled;
    this.workspace = realOrResolved(options.cwd);
    this.store = new CheckpointStore(join(options.hermesHome, "checkpoints"), {
      maxSnapshots: settings.max_snapshots,
      maxTotalBytes: Math.round(settings.max_total_size_mb * MB),
      maxFileBytes: Math.round(settings.max_file_size_mb * MB),
    });
  }

  /**
   * The `checkpoint` port for one turn (none when checkpoints are off). It never rejects: a
   * failure (no git, a full disk, an unwritable `$HERMES_HOME`, a busy store) lets the edit go on,
   * and the first one of the session is told through `notifyUser`; a cancelled snapshot is silent.
   */
  turnPorts(notifyUser: ((text: string) => void) | undefined): Pick<ToolPorts, "checkpoint"> {
    if (!this.enabled) return {};
    let taken = false;
    return {
      checkpoint: async (request, signal) => {
        if (taken) return;
        const inside = this.relativePaths(request);
        if (inside.length === 0) return;
        taken = true;
        try {
          if (this.tooBroad()) throw new CheckpointSkipped(`${this.workspace} is too broad to snapshot (the root or your home folder)`);
          await this.store.take(this.workspace, reasonOf(request.toolName, inside), signal);
        } catch (error) {
          if (signal.aborted) return;
          log.warn(`checkpoint of ${this.workspace} failed; the edit goes on without it`, error);
          if (this.told) return;
          this.told = true;
          notifyUser?.(`⚠ Checkpoints are unavailable: ${describeFailure(error)}. Edits go on without them; /rollback cannot undo them.`);
        }
      },
    };
  }

  /** The workspace's checkpoints, newest first. Rejects when the store cannot be read. */
  list(): Promise<Checkpoint[]> {
    return this.store.list(this.workspace);
  }

  /** What restoring `checkpoint` would change now, with both contents (see CheckpointStore.preview). */
  preview(checkpoint: Checkpoint): Promise<Array<RestoreChange & { current: Buffer | null; restored: Buffer | null }>> {
    return this.store.preview(this.workspace, checkpoint.hash);
  }

  /** Restores `checkpoint` (after a pre-rollback snapshot), only if it changes exactly `expected`; see CheckpointStore.restore. */
  restore(checkpoint: Checkpoint, expected?: readonly RestoreChange[]): Promise<{ changes: RestoreChange[]; skipped: string[] }> {
    return this.store.restore(this.workspace, checkpoint, expected);
  }

  private tooBroad(): boolean {
    return this.workspace === resolve("/") || this.workspace === realOrResolved(homedir());
  }

  /** The request's paths inside the workspace, relative and `/`-separated, in order, without repeats. */
  private relativePaths(request: CheckpointRequest): string[] {
    const seen = new Set<string>();
    for (const path of request.paths) {
      const rel = relative(this.workspace, realParent(path));
      if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
      seen.add(rel.split(sep).join("/"));
    }
    return [...seen];
  }
}

/** `path` with its existing folders' symlinks resolved (the file itself may not exist yet). */
function realParent(path: string): string {
  const absolute = resolve(path);
  const parent = resolve(absolute, "..");
  return join(realOrResolved(parent), absolute.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
}

/** `write_file: a.txt`, `patch: a.txt, b.txt, c.txt and 2 more`. */
function reasonOf(toolName: string, paths: readonly string[]): string {
  const named = paths.slice(0, REASON_FILES).join(", ");
  const more = paths.length > REASON_FILES ? ` and ${paths.length - REASON_FILES} more` : "";
  return `${toolName}: ${named}${more}`;
}
