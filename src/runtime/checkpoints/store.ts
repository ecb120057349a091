import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, lstat, mkdir, readlink, rename, rm, stat, writeFile, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { holdFlock } from "../../shared/flock.js";
import { DEFAULT_EXCLUDES, STORE_ATTRIBUTES } from "./excludes.js";
import { git, GitError, GIT_TIMEOUT_MS, gitRaw, nulList, type GitCall } from "./git.js";
import { pruneHistory } from "./prune.js";
import { applyRestore } from "./restore.js";
import type { Checkpoint, CheckpointLimits, RestoreChange } from "./types.js";

export type { Checkpoint, CheckpointLimits, RestoreChange, RestoreKind } from "./types.js";

/** Snapshotting was skipped, not failed: the workspace is too broad or too big. */
export class CheckpointSkipped extends Error {}

/** A restore found other changes than the preview the user confirmed: nothing was restored. */
export class CheckpointChanged extends Error {
  constructor() {
    super("the files changed after the preview you confirmed, so nothing was restored");
  }
}

/** Larger workspaces are never snapshotted (Hermes' `_MAX_FILES`). */
const MAX_FILES = 50_000;
/** How long a take waits for another program's store lock (Hermes' `STORE_LOCK_TAKE_TIMEOUT_SECONDS`). */
const LOCK_WAIT_MS = 5_000;
const REFS_PREFIX = "refs/hermes";
/** A git lock file this old is stale even where no flock guards the store (every git call is stopped by GIT_TIMEOUT_MS). */
const STALE_LOCK_MS = 2 * GIT_TIMEOUT_MS;

/** Serialises this process's operations per store (the flock covers other processes). */
const localLocks = new Map<string, Promise<unknown>>();

/** Writes `content` to `path` through a temporary file in the same folder and a rename. */
export async function writeAtomic(path: string, content: string | Buffer): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, content);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * The shadow git store of filesystem checkpoints, in Hermes' layout so Python Hermes and this agent
 * read each other's snapshots: `<base>/store/` is one bare repository shared by every workspace
 * (objects deduplicated), with per workspace (`<hash16>` = sha256 of its real path, 16 hex digits)
 * a ref `refs/hermes/<hash16>`, an index `indexes/<hash16>` and `projects/<hash16>.json`
 * (`{workdir, created_at, last_touch}`). The user's git configuration never applies, and nothing
 * is written inside the workspace.
 *
 * Every operation holds the store lock (Hermes' `$HERMES_HOME/.checkpoints.lock` flock, and an
 * in-process queue) and rejects on failure (git missing, a read-only or full disk, the lock
 * held past 5 s); `take` rejects with CheckpointSkipped for a workspace it will not snapshot.
 * Symlinks are stored as links, never followed; files are stored byte for byte (`STORE_ATTRIBUTES`);
 * embedded repositories are left out (git would run their configuration); credential files are
 * excluded. A lock file left by a killed git, or a corrupt index, is cleared on the next take.
 */
export class CheckpointStore {
  readonly store: string;
  private readonly lockPath: string;

  constructor(
    readonly base: string,
    readonly limits: CheckpointLimits,
  ) {
    this.store = join(base, "store");
    this.lockPath = join(dirname(base), `.${base.split(/[\\/]/).pop() ?? "checkpoints"}.lock`);
  }

  /** sha256 of the workspace path, first 16 hex digits (Hermes' `_project_hash`). */
  static workspaceHash(workspace: string): string {
    return createHash("sha256").update(workspace).digest("hex").slice(0, 16);
  }

  /**
   * Snapshots `workspace` (a real, absolute path) as it is now with `reason` as its message;
   * resolves "taken", or "unchanged" when it matches the latest snapshot (or holds no file).
   * Then applies the count and size limits.
   */
  take(workspace: string, reason: string, signal?: AbortSignal): Promise<"taken" | "unchanged"> {
    return this.locked((exclusive) => this.takeUnlocked(workspace, reason, true, exclusive, signal));
  }

  /** The workspace's snapshots, newest first (at most `maxSnapshots`); empty when it has none. */
  list(workspace: string): Promise<Checkpoint[]> {
    return this.locked(async () => {
      if (!existsSync(join(this.store, "HEAD"))) return [];
      const ref = this.refOf(workspace);
      const out = await gitRaw(["log", "-z", `-n${this.limits.maxSnapshots}`, "--format=%H%x01%h%x01%aI%x01%s", ref, "--"], {
        store: this.store,
        allow: [128],
      });
      if (out.code !== 0) return [];
      return nulList(out.stdout).map((line) => {
        const [hash = "", short = "", time = "", reason = ""] = line.split("\x01");
        return { hash, short, time, reason };
      });
    });
  }

  /**
   * What restoring `hash` would do to the workspace now, in path order, with both contents
   * (null where the file is absent; a symlink's content is its target, never followed). Files a
   * snapshot never holds (excluded, over the size limit) are not part of it, nor are files the
   * restore would leave alone because the current ones cannot be snapshotted first.
   */
  preview(workspace: string, hash: string): Promise<Array<RestoreChange & { current: Buffer | null; restored: Buffer | null }>> {
    return this.locked(async () => {
      const call = await this.scratchIndex(workspace);
      try {
        await this.stageRepairing(workspace, call, await this.tipOf(this.refOf(workspace)));
        const { changes } = await this.splitUnsnapshotted(workspace, await this.changesSince(hash, call));
        const blobs = await this.treeEntries(hash);
        return Promise.all(
          changes.map(async (change) => {
            const entry = blobs.get(change.path);
            const restored = change.kind === "deleted" || !entry ? null : (await gitRaw(["cat-file", "blob", entry.sha], { store: this.store })).stdout;
            const current = change.kind === "created" ? null : await currentContent(join(workspace, change.path));
            return { ...change, current, restored };
          }),
        );
      } finally {
        await rm(call.index!, { force: true }).catch(() => undefined);
      }
    });
  }

  /**
   * Brings the workspace back to `hash`: first a "pre-rollback" snapshot of the current state
   * (so a rollback can be rolled back), then every file that differs is rewritten (through a
   * temporary file and a rename), recreated or deleted. A path that goes through a symlink inside
   * the workspace is left alone and reported as skipped, and so is a file the pre-rollback snapshot
   * could not hold (over the size limit, excluded) that the checkpoint would overwrite. With
   * `expected` (the preview the user confirmed), rejects with CheckpointChanged, restoring
   * nothing, when what it would change is not exactly that. Resolves with what was done.
   */
  restore(workspace: string, checkpoint: Checkpoint, expected?: readonly RestoreChange[]): Promise<{ changes: RestoreChange[]; skipped: string[] }> {
    return this.locked(async (exclusive) => {
      await this.takeUnlocked(workspace, `pre-rollback snapshot (restoring to ${checkpoint.short})`, false, exclusive);
      const call = this.workspaceCall(workspace);
      const { changes, held } = await this.splitUnsnapshotted(workspace, await this.changesSince(checkpoint.hash, call));
      if (expected && !sameChanges(changes, expected)) throw new CheckpointChanged();
      const entries = await this.treeEntries(checkpoint.hash);
      const result = await applyRestore(workspace, changes, entries, (sha) => gitRaw(["cat-file", "blob", sha], { store: this.store }).then((out) => out.stdout));
      await pruneHistory(this.store, this.refOf(workspace), REFS_PREFIX, this.limits);
      return { changes: result.changes, skipped: [...held.map((path) => `${path} (the current file could not be snapshotted first: over the size limit or excluded)`), ...result.skipped] };
    });
  }

  private refOf(workspace: string): string {
    return `${REFS_PREFIX}/${CheckpointStore.workspaceHash(workspace)}`;
  }

  private workspaceCall(workspace: string, signal?: AbortSignal): GitCall {
    return { store: this.store, workTree: workspace, index: join(this.store, "indexes", CheckpointStore.workspaceHash(workspace)), ...(signal ? { signal } : {}) };
  }

  private async takeUnlocked(workspace: string, reason: string, prune: boolean, exclusive: boolean, signal?: AbortSignal): Promise<"taken" | "unchanged"> {
    await this.init();
    await this.touchProject(workspace);
    const ref = this.refOf(workspace);
    const call = this.workspaceCall(workspace, signal);
    await clearStaleLock(`${call.index!}.lock`, exclusive);
    await clearStaleLock(join(this.store, `${ref}.lock`), exclusive);
    const tip = await this.tipOf(ref);
    if (!existsSync(call.index!) && tip) await git(["read-tree", tip], call);
    await this.stageRepairing(workspace, call, tip);
    if (tip) {
      const same = await gitRaw(["diff-index", "--cached", "--quiet", tip, "--"], { ...call, allow: [1] });
      if (same.code === 0) return "unchanged";
    } else if ((await git(["ls-files", "--cached", "-z"], call)) === "") {
      return "unchanged";
    }
    const tree = await git(["write-tree"], call);
    const commit = await git(["commit-tree", tree, ...(tip ? ["-p", tip] : []), "-m", reason], call);
    await git(["update-ref", ref, commit, ...(tip ? [tip] : [])], call);
    if (prune) await pruneHistory(this.store, ref, REFS_PREFIX, this.limits);
    return "taken";
  }

  /** `stage`, and when the index is unreadable (a git killed while writing it), the index rebuilt from `tip` and staged again. */
  private async stageRepairing(workspace: string, call: GitCall, tip: string | undefined): Promise<void> {
    try {
      await this.stage(workspace, call);
    } catch (error) {
      if (!(error instanceof GitError) || !/\bindex\b/i.test(error.stderr)) throw error;
      await rm(call.index!, { force: true });
      if (tip) await git(["read-tree", tip], call);
      await this.stage(workspace, call);
    }
  }

  /**
   * Brings `call.index` to the workspace as it is: every change git's exclusion rules (the
   * workspace's `.gitignore` files and the store's `info/exclude`) let through, files over the
   * size limit left out (and dropped when an older version was held). Held files that are
   * excluded now, and embedded repositories (gitlinks: a gitlink in the index makes `git add`
   * run `git status` inside that repository, under its own configuration), are dropped and never added.
   */
  private async stage(workspace: string, call: GitCall): Promise<void> {
    const dropped = nulList((await gitRaw(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"], call)).stdout);
    for (const line of nulList((await gitRaw(["ls-files", "-z", "--stage"], call)).stdout)) {
      if (line.startsWith("160000 ")) dropped.push(line.slice(line.indexOf("\t") + 1));
    }
    if (dropped.length > 0) await gitRaw(["update-index", "--force-remove", "-z", "--stdin"], { ...call, input: dropped.map((path) => `${path}\0`).join("") });
    const candidates = nulList((await gitRaw(["ls-files", "-z", "--others", "--modified", "--exclude-standard"], call)).stdout);
    if (candidates.length > MAX_FILES) throw new CheckpointSkipped(`${workspace} has more than ${MAX_FILES} files`);
    if (candidates.length === 0) return;
    const left: string[] = candidates.filter((path) => path.endsWith("/")).map((path) => path.slice(0, -1));
    const oversize: string[] = [];
    if (this.limits.maxFileBytes > 0) {
      for (const path of new Set(candidates)) {
        const stats = await lstat(join(workspace, path)).catch(() => undefined);
        if (stats?.isFile() && stats.size > this.limits.maxFileBytes) oversize.push(path);
      }
    }
    if (oversize.length > 0) await gitRaw(["update-index", "--force-remove", "-z", "--stdin"], { ...call, input: oversize.map((path) => `${path}\0`).join("") });
    const pathspecs = [".", ...[...oversize, ...left].map((path) => `:(exclude,literal)${path}`)];
    await gitRaw(["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], { ...call, input: pathspecs.map((spec) => `${spec}\0`).join("") });
  }

  /** What differs between `hash` and `call.index`, as restoring `hash` would undo it. */
  private async changesSince(hash: string, call: GitCall): Promise<RestoreChange[]> {
    const fields = nulList((await gitRaw(["diff-index", "--cached", "-z", "--name-status", "--no-renames", hash, "--"], call)).stdout);
    const changes: RestoreChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i]!;
      const path = fields[i + 1]!;
      changes.push({ path, kind: status === "A" ? "deleted" : status === "D" ? "created" : "restored" });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * `changes` split into what a restore may do and `held`: files it would recreate ("created":
   * absent from the current snapshot) while a file is there now, one the current snapshot could
   * not hold (over the size limit, excluded), so overwriting it would lose it for good.
   */
  private async splitUnsnapshotted(workspace: string, changes: readonly RestoreChange[]): Promise<{ changes: RestoreChange[]; held: string[] }> {
    const kept: RestoreChange[] = [];
    const held: string[] = [];
    for (const change of changes) {
      const stats = change.kind === "created" ? await lstat(join(workspace, change.path)).catch(() => undefined) : undefined;
      if (stats && !stats.isDirectory()) held.push(change.path);
      else kept.push(change);
    }
    return { changes: kept, held };
  }

  /** The snapshot's files: path → mode and blob id (submodule links left out). */
  private async treeEntries(hash: string): Promise<Map<string, { mode: string; sha: string }>> {
    const out = await gitRaw(["ls-tree", "-r", "-z", "--full-tree", hash], { store: this.store });
    const entries = new Map<string, { mode: string; sha: string }>();
    for (const line of nulList(out.stdout)) {
      const tab = line.indexOf("\t");
      const [mode = "", type = "", sha = ""] = line.slice(0, tab).split(" ");
      if (type === "blob") entries.set(line.slice(tab + 1), { mode, sha });
    }
    return entries;
  }

  /** A throwaway copy of the workspace's index (its stat cache saves rehashing), for looking without changing anything. */
  private async scratchIndex(workspace: string): Promise<GitCall> {
    const own = this.workspaceCall(workspace);
    const scratch = { ...own, index: join(this.store, "indexes", `${CheckpointStore.workspaceHash(workspace)}.${randomBytes(4).toString("hex")}.scratch`) };
    if (existsSync(own.index!)) await copyFile(own.index!, scratch.index);
    else {
      const tip = await this.tipOf(this.refOf(workspace));
      if (tip) await git(["read-tree", tip], scratch);
    }
    return scratch;
  }

  private async tipOf(ref: string): Promise<string | undefined> {
    const out = await gitRaw(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { store: this.store, allow: [1, 128] });
    return out.code === 0 ? out.stdout.toString("utf8").trim() || undefined : undefined;
  }

  /**
   * Creates the store on first use: a bare repository with its own identity, no signing, no
   * automatic gc; and keeps its `info/exclude` (Hermes' excludes and credential files) and
   * `info/attributes` (byte-for-byte storage) current, also in a store an older version made.
   */
  private async init(): Promise<void> {
    if (!existsSync(join(this.store, "HEAD"))) await this.create();
    for (const [name, content] of [
      ["exclude", `${DEFAULT_EXCLUDES.join("\n")}\n`],
      ["attributes", STORE_ATTRIBUTES],
    ] as const) {
      const path = join(this.store, "info", name);
      if ((await readFile(path, "utf8").catch(() => undefined)) === content) continue;
      await mkdir(dirname(path), { recursive: true });
      await writeAtomic(path, content);
    }
  }

  private async create(): Promise<void> {
    await mkdir(this.store, { recursive: true });
    await git(["init", "--bare", "--quiet", this.store], { store: this.store });
    const call = { store: this.store };
    for (const [key, value] of [
      ["user.email", "hermes@local"],
      ["user.name", "Hermes Checkpoint"],
      ["commit.gpgsign", "false"],
      ["tag.gpgSign", "false"],
      ["gc.auto", "0"],
      ["core.autocrlf", "false"],
    ] as const) {
      await git(["config", key, value], call);
    }
    await mkdir(join(this.store, "indexes"), { recursive: true });
    await mkdir(join(this.store, "projects"), { recursive: true });
  }

  /** Records the workspace in `projects/<hash16>.json` (Hermes' metadata), keeping `created_at`. */
  private async touchProject(workspace: string): Promise<void> {
    const path = join(this.store, "projects", `${CheckpointStore.workspaceHash(workspace)}.json`);
    await mkdir(dirname(path), { recursive: true });
    const now = Date.now() / 1000;
    let created = now;
    try {
      const existing = JSON.parse(await readFile(path, "utf8")) as { created_at?: unknown };
      if (typeof existing.created_at === "number") created = existing.created_at;
    } catch {
      // first snapshot of this workspace, or unreadable metadata: written afresh
    }
    await writeAtomic(path, JSON.stringify({ workdir: workspace, created_at: created, last_touch: now }));
  }

  /**
   * Runs `work` holding this process's queue for the store and the cross-process flock;
   * `exclusive` tells it whether the flock was held (no other program's git can be running).
   */
  private locked<T>(work: (exclusive: boolean) => Promise<T>): Promise<T> {
    const previous = localLocks.get(this.lockPath) ?? Promise.resolve();
    const run = async (): Promise<T> => {
      await mkdir(dirname(this.lockPath), { recursive: true });
      const release = await holdFlock(this.lockPath, LOCK_WAIT_MS);
      try {
        return await work(release !== undefined);
      } finally {
        release?.();
      }
    };
    const next = previous.then(run, run);
    localLocks.set(
      this.lockPath,
      next.catch(() => undefined),
    );
    return next;
  }
}

/** Removes the git lock file at `path` when it is stale: always while the store's flock is held, else once it is older than STALE_LOCK_MS. */
async function clearStaleLock(path: string, exclusive: boolean): Promise<void> {
  const stats = await stat(path).catch(() => undefined);
  if (!stats) return;
  if (exclusive || Date.now() - stats.mtimeMs > STALE_LOCK_MS) await rm(path, { force: true });
}

/** A workspace file's content for a preview: a symlink's target (as git stores it, never followed), a regular file's bytes, else null. */
async function currentContent(path: string): Promise<Buffer | null> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isSymbolicLink()) return Buffer.from(await readlink(path));
  if (stats?.isFile()) return readFile(path).catch(() => null);
  return null;
}

/** Whether two change lists name the same paths with the same kinds (in any order). */
function sameChanges(a: readonly RestoreChange[], b: readonly RestoreChange[]): boolean {
  const key = (change: RestoreChange): string => `${change.kind}\0${change.path}`;
  const left = new Set(a.map(key));
  return a.length === b.length && left.size === new Set(b.map(key)).size && b.every((change) => left.has(key(change)));
}
