import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { SandboxMount } from "./mounts.js";

/**
 * Things inside the readable or writable area that would let a confined command act outside the
 * sandbox later or elsewhere: sockets of services that run what they are asked, the agents' own
 * state in temp, and the parts of a git repository that git runs code from.
 */

/**
 * Sockets of services that run what they are asked to outside any sandbox (the container
 * engines, systemd over D-Bus): hidden, since connecting to one would be a way out.
 */
export const ESCAPE_SOCKETS: readonly string[] = [
  "/var/run/docker.sock",
  "/run/docker.sock",
  "/run/containerd/containerd.sock",
  "/run/podman/podman.sock",
  "/run/dbus/system_bus_socket",
  "/var/run/dbus/system_bus_socket",
  "/run/systemd/private",
  "/run/screen",
];

/**
 * Folders in temp where terminal multiplexers, ssh/gpg agents, X11 and desktop services keep
 * their sockets (tmux `run-shell`, an ssh agent's keys, X11 key injection).
 */
const SOCKET_DIR_RE = /^(?:tmux-\d+|ssh-|\.X11-unix$|\.ICE-unix$|\.font-unix$|screen|gpg-|pulse-|dbus-|emacs\d+|vscode-ipc|zellij)/;

/** Most temp entries looked at per folder (a temp dir can hold thousands). */
const MAX_TEMP_ENTRIES = 5000;

/**
 * The sockets a command must not reach: the fixed list, the whole per-user runtime folder
 * (`$XDG_RUNTIME_DIR`: D-Bus, gpg-agent, container engines, the desktop), `$SSH_AUTH_SOCK`, and
 * every socket in a temp folder's top level or in its known socket folders.
 */
export function escapeSockets(tempDirs: readonly string[]): string[] {
  const found = [...ESCAPE_SOCKETS];
  const runtime = process.env.XDG_RUNTIME_DIR || (typeof process.getuid === "function" ? `/run/user/${process.getuid()}` : "");
  if (runtime) found.push(runtime);
  const agent = process.env.SSH_AUTH_SOCK;
  if (agent && isAbsolute(agent)) found.push(agent);
  for (const dir of tempDirs) {
    for (const entry of entries(dir).slice(0, MAX_TEMP_ENTRIES)) {
      if (entry.isSocket()) found.push(join(dir, entry.name));
      else if (entry.isDirectory() && SOCKET_DIR_RE.test(entry.name)) found.push(join(dir, entry.name));
    }
  }
  return found;
}

/**
 * What protects the repositories at `cwd` (and in its direct subfolders) from a command that
 * would plant something git runs later outside the sandbox: each `.git` folder bound onto itself
 * (a mount point cannot be renamed or removed, so it cannot be swapped for a look-alike), its
 * `hooks` and `config` read-only, with those of its submodules (`.git/modules/…`); a `.git` file
 * (a worktree) read-only, with the hooks and config of the folder it names. Creates an empty
 * `hooks` folder where one is missing, so there is something to mount. Bounded reads only.
 * What a command creates during a call (a new repository, `commondir`) is the tripwire's part
 * (see `git-tripwire.ts`).
 */
export function gitProtectedMounts(cwd: string): SandboxMount[] {
  const mounts: SandboxMount[] = [];
  const repos = [cwd, ...entries(cwd).filter((entry) => entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")).slice(0, MAX_NESTED_REPOS).map((entry) => join(cwd, entry.name))];
  for (const repo of repos) mounts.push(...repositoryMounts(repo));
  return mounts;
}

const MAX_NESTED_REPOS = 200;
const MAX_SUBMODULE_DEPTH = 3;
const MAX_SUBMODULES = 64;

function repositoryMounts(repo: string): SandboxMount[] {
  const dotGit = join(repo, ".git");
  let kind: "dir" | "file";
  try {
    const stat = lstatSync(dotGit);
    if (stat.isDirectory()) kind = "dir";
    else if (stat.isFile()) kind = "file";
    else return [];
  } catch {
    return [];
  }
  const mounts: SandboxMount[] = [];
  const protect = (dir: string, depth: number): void => {
    const hooks = join(dir, "hooks");
    try {
      if (!existsSync(hooks)) mkdirSync(hooks);
    } catch {
      // an unwritable repository: nothing can be planted there either
    }
    mounts.push({ path: hooks, access: "read-only" }, { path: join(dir, "config"), access: "read-only" });
    for (const name of ["commondir", "config.worktree", "info"]) if (existsSync(join(dir, name))) mounts.push({ path: join(dir, name), access: "read-only" });
    if (depth >= MAX_SUBMODULE_DEPTH) return;
    for (const name of childDirs(join(dir, "modules")).slice(0, MAX_SUBMODULES)) protect(join(dir, "modules", name), depth + 1);
  };
  if (kind === "dir") {
    mounts.push({ path: dotGit, access: "writable" });
    protect(dotGit, 0);
  } else {
    mounts.push({ path: dotGit, access: "read-only" });
    const target = gitFileTarget(dotGit);
    if (target && isDirectory(target)) {
      protect(target, MAX_SUBMODULE_DEPTH);
      // A linked worktree runs the hooks of the repository it belongs to.
      const common = join(target, "commondir");
      if (existsSync(common)) {
        const shared = resolve(target, readFileSync(common, "utf8").trim());
        if (isDirectory(shared)) protect(shared, MAX_SUBMODULE_DEPTH);
      }
    }
  }
  return mounts;
}

/** The folder a `.git` file names (`gitdir: <path>`), absolute; undefined when unreadable. */
export function gitFileTarget(dotGitFile: string): string | undefined {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGitFile, "utf8"));
    return match ? resolve(dirname(dotGitFile), match[1]!) : undefined;
  } catch {
    return undefined;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function childDirs(dir: string): string[] {
  return entries(dir)
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
