import { mkdir, readdir, lstat, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { git, nulList, type GitCall } from "./git.js";
import type { CheckpointLimits } from "./types.js";

/** Marks a store whose history was rewritten without a gc (Hermes' `.gc-pending`). */
const GC_PENDING = ".gc-pending";
/** Rounds of dropping every workspace's oldest snapshot while the store is over its size limit. */
const SIZE_ROUNDS = 20;

/** Bytes under `path` (regular files, not following links). Never throws. */
export async function folderBytes(path: string): Promise<number> {
  let total = 0;
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) total += await folderBytes(child);
    else if (entry.isFile()) total += (await lstat(child).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/** The ref's commits, oldest first. */
async function commitsOf(call: GitCall, ref: string): Promise<string[]> {
  return (await git(["rev-list", "--reverse", ref, "--"], call)).split("\n").filter(Boolean);
}

/**
 * Rewrites `ref` to hold only `keep` (oldest first, at least one), each commit recreated with its
 * tree, message and dates; the ref moves only if nobody moved it since (`update-ref <new> <old>`).
 */
async function rewrite(call: GitCall, ref: string, tip: string, keep: readonly string[]): Promise<void> {
  const metadata = new Map<string, string[]>();
  for (const record of nulList(await git(["log", "-z", "--format=%H%x01%T%x01%aI%x01%cI%x01%s", tip, "--"], call))) {
    const fields = record.split("\x01");
    metadata.set(fields[0] ?? "", fields.slice(1));
  }
  let parent: string | undefined;
  for (const sha of keep) {
    const [tree = "", authorDate = "", committerDate = "", message = ""] = metadata.get(sha) ?? [];
    if (!tree) throw new Error(`checkpoint ${sha} has no readable metadata`);
    parent = await git(["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", message], { ...call, env: { GIT_AUTHOR_DATE: authorDate, GIT_COMMITTER_DATE: committerDate } });
  }
  if (!parent) throw new Error("a workspace's last checkpoint is never removed");
  await git(["update-ref", ref, parent, tip], call);
  await writeFile(join(call.store, GC_PENDING), "").catch(() => undefined);
}

/** Deletes unreachable objects and packs the rest (`git gc --prune=now`); the bare store keeps the folders git expects. */
async function reclaim(call: GitCall): Promise<void> {
  await git(["reflog", "expire", "--expire=now", "--all"], call);
  await git(["gc", "--prune=now", "--quiet"], call);
  for (const name of ["refs/heads", "branches"]) await mkdir(join(call.store, name), { recursive: true });
  await rm(join(call.store, GC_PENDING), { force: true });
}

/**
 * Hermes' two budgets after a snapshot: `ref` keeps its newest `maxSnapshots` (the rewrite's
 * garbage is left for a later gc); then, while the store is over `maxTotalBytes`, a gc, and
 * round by round every workspace's oldest snapshot is dropped (each keeps at least one) until it
 * fits. Rejects when a git step fails; the snapshot just taken stays either way.
 */
export async function pruneHistory(store: string, ref: string, refsPrefix: string, limits: CheckpointLimits): Promise<void> {
  const call: GitCall = { store };
  const commits = await commitsOf(call, ref);
  if (commits.length > limits.maxSnapshots) await rewrite(call, ref, commits.at(-1)!, commits.slice(-Math.max(1, limits.maxSnapshots)));
  if (limits.maxTotalBytes <= 0 || (await folderBytes(store)) <= limits.maxTotalBytes) return;
  await reclaim(call);
  for (let round = 0; round < SIZE_ROUNDS; round++) {
    if ((await folderBytes(store)) <= limits.maxTotalBytes) return;
    let changed = false;
    for (const other of (await git(["for-each-ref", "--format=%(refname)", refsPrefix], call)).split("\n").filter(Boolean)) {
      const history = await commitsOf(call, other);
      if (history.length <= 1) continue;
      await rewrite(call, other, history.at(-1)!, history.slice(1));
      changed = true;
    }
    if (!changed) return;
    await reclaim(call);
  }
}
