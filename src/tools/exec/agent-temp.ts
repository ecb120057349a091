import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let root: string | undefined;

/**
 * This user's folder in temp for what the agent keeps there (shell snapshots, the sandbox's
 * unreadable stub): `<tmp>/hermes-<uid>`, mode 0700. Every sandbox mounts it read-only (one
 * mount, however many sessions and crashed processes left folders in it), so no command can
 * change what a later command sources or sees. A folder of that name that is not ours (a
 * symlink, another owner, open to others) is never used: a fresh private one is made instead.
 */
export function agentTempRoot(): string {
  if (root) return root;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const fixed = join(tmpdir(), `hermes-${uid}`);
  try {
    mkdirSync(fixed, { mode: 0o700 });
  } catch {
    // exists already (checked below) or cannot be made
  }
  root = isPrivateDir(fixed, uid) ? fixed : mkdtempSync(join(tmpdir(), `hermes-${uid}-`));
  return root;
}

function isPrivateDir(path: string, uid: number): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() && !stat.isSymbolicLink() && stat.uid === uid && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

let stub: string | undefined;

/**
 * An empty file with mode 000 in the agent's temp folder, bound read-only over hidden files:
 * commands run with no capabilities, so even root is held to the mode bits. Checked (empty,
 * mode 000, a plain file) and remade when anything else is found there.
 */
export function hiddenFileStub(): string {
  if (stub) return stub;
  const file = join(agentTempRoot(), "hidden-file");
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size !== 0 || (stat.mode & 0o777) !== 0) throw new Error("not the stub");
  } catch {
    rmSync(file, { recursive: true, force: true });
    writeFileSync(file, "");
    chmodSync(file, 0o000);
  }
  stub = file;
  return file;
}
