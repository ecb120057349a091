import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";

/** Session modes: how edits are approved, and whether anything but reading may run. */
export type SessionMode = "default" | "accept_edits" | "dont_ask" | "plan";

export interface ModeInfo {
  id: SessionMode;
  name: string;
  description: string;
}

/**
 * The modes as the editor lists them. `accept_edits` and `dont_ask` have the same edit policy
 * (see `editAutoApproved`): `dont_ask` means "don't ask about edits in my project", not "write
 * anywhere", so both exist for clients and users who pick either name, and both descriptions say
 * what really happens.
 */
export const SESSION_MODES: readonly ModeInfo[] = [
  { id: "default", name: "Default", description: "Ask before edits." },
  {
    id: "accept_edits",
    name: "Accept Edits",
    description: "Auto-allow edits in the workspace and the temp dir; still asks for sensitive paths, hard-linked files and anything outside.",
  },
  {
    id: "dont_ask",
    name: "Don't Ask",
    description:
      "Don't ask about edits in this project: same as Accept Edits. Workspace and temp-dir edits go ahead; sensitive paths, hard-linked files and anything outside still ask.",
  },
  { id: "plan", name: "Plan", description: "Read and search only (commands run in a read-only sandbox); the agent presents a plan instead of changing anything." },
];

export function isSessionMode(value: unknown): value is SessionMode {
  return SESSION_MODES.some((mode) => mode.id === value);
}

/** Path components that make anything below them sensitive: version control and credential stores. */
const SENSITIVE_DIRS = new Set([".git", ".ssh", ".aws", ".gnupg", ".kube", ".azure", ".gcloud"]);
/** Consecutive components that are sensitive together (a config dir that holds credentials or runs code). */
const SENSITIVE_SEQUENCES: readonly (readonly string[])[] = [
  [".docker", "config.json"],
  [".config", "gcloud"],
  [".config", "gh"],
  [".config", "git"],
];
const SENSITIVE_FILES = new Set([
  ".env",
  "id_rsa",
  "id_ed25519",
  // shell start-up files and credential stores: an edit there runs or leaks on the next login
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  // git's own configuration (aliases, hooks paths, fsmonitor all run code) and stored credentials
  ".gitconfig",
  ".git-credentials",
]);

function hasSequence(parts: readonly string[], sequence: readonly string[]): boolean {
  for (let i = 0; i + sequence.length <= parts.length; i++) {
    if (sequence.every((part, j) => parts[i + j] === part)) return true;
  }
  return false;
}

/**
 * True when a path must always be asked about, whatever the mode: a `.git`, `.ssh`, `.aws`,
 * `.gnupg`, `.kube`, `.azure` or `.gcloud` component, `.docker/config.json`, `.config/gcloud`,
 * `.config/gh` or `.config/git`, a `.env*` file, an SSH private key, a shell start-up file,
 * `.gitconfig`, a credential store, or anything under `protectedRoots` (HERMES_HOME: its
 * config.yaml can switch approvals off). Checked on the path as written and on its real target,
 * so a symlink to `.env` counts too. Never throws.
 */
export function isSensitivePath(path: string, protectedRoots: readonly string[] = []): boolean {
  if (protectedRoots.some((root) => isInside(path, root))) return true;
  return [resolve(path), realTarget(path)].some((candidate) => {
    const parts = candidate.split(sep).map((part) => part.toLowerCase());
    if (parts.some((part) => SENSITIVE_DIRS.has(part))) return true;
    if (SENSITIVE_SEQUENCES.some((sequence) => hasSequence(parts, sequence))) return true;
    const name = basename(candidate).toLowerCase();
    return SENSITIVE_FILES.has(name) || name.startsWith(".env");
  });
}

/** Symlinks followed before `realTarget` gives up (the kernel's own limit is 40). */
const MAX_SYMLINKS = 40;

/**
 * Where a write to `path` really lands, resolved the way the kernel does: component by component,
 * following every symlink (dangling ones included, to the file a write would create) and applying
 * a link target's `..` to the real folder, never lexically. Absolute; never throws. Components
 * that do not exist yet are kept as written; after a symlink loop the rest is kept as written
 * (the write itself then fails with ELOOP).
 */
export function realTarget(path: string): string {
  const absolute = resolve(path);
  const root = parse(absolute).root;
  const pending = absolute.slice(root.length).split(sep).filter(Boolean);
  let current = root;
  let links = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const target = safeLstat(next)?.isSymbolicLink() ? safeReadlink(next) : undefined;
    if (target === undefined) {
      current = next;
      continue;
    }
    if (++links > MAX_SYMLINKS) return resolve(next, ...pending);
    if (isAbsolute(target)) current = parse(target).root;
    pending.unshift(...target.slice(isAbsolute(target) ? parse(target).root.length : 0).split(sep).filter(Boolean));
  }
  return current;
}

function safeLstat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function safeReadlink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * How many hard links the file a write to `path` lands on has: the link count of its real target
 * when that is an existing regular file, else 0 (nothing there yet, or not a file). More than 1
 * means the same bytes are reachable under another name, possibly outside the workspace, and a
 * write changes them there too. Never throws.
 */
export function hardLinkCount(path: string): number {
  const entry = safeLstat(realTarget(path));
  return entry?.isFile() ? entry.nlink : 0;
}

function isInside(path: string, root: string): boolean {
  return contains(realTarget(root), realTarget(path));
}

/** Both arguments real and absolute. */
function contains(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Where edits count as "the project". Real, absolute paths. */
export interface EditArea {
  /** The session's working directory. */
  cwd: string;
  /** The system temp directory (`os.tmpdir()`, real). */
  temp: string;
  /** The user's home directory (`os.homedir()`, real). */
  home: string;
}

/** The area for `cwd` on this machine. Never throws. */
export function editArea(cwd: string): EditArea {
  return { cwd: realTarget(cwd), temp: realTarget(tmpdir()), home: realTarget(homedir()) };
}

/**
 * True when `real` is under a dot entry of the home directory (`~/.config/…`, `~/.local/…`,
 * `~/.bashrc`) that `root` itself does not lie in: configuration that runs or is trusted on the
 * next login, not part of a project opened at `root`. A project opened inside such an entry
 * (`~/.config/nvim`) still owns its own files.
 */
function inForeignHomeConfig(real: string, root: string, home: string): boolean {
  if (!contains(home, real) || real === home) return false;
  const first = relative(home, real).split(sep)[0] ?? "";
  return first.startsWith(".") && !contains(resolve(home, first), root);
}

/**
 * Whether the real target `real` is in the project area: inside the cwd, or inside the temp dir,
 * and in neither case in the home directory's configuration. When the home directory lies inside
 * (or is) the temp dir (a test's throwaway HOME), the home directory is not part of the temp area.
 */
function inProjectArea(real: string, area: EditArea): boolean {
  if (contains(area.cwd, real)) return !inForeignHomeConfig(real, area.cwd, area.home);
  if (!contains(area.temp, real)) return false;
  // The temp dir may hold the home directory (a test's HOME) but never lends it its status; a temp
  // dir strictly inside the home directory (TMPDIR=~/tmp) is still temp.
  const tempInsideHome = area.temp !== area.home && contains(area.home, area.temp);
  if (contains(area.home, real) && !tempInsideHome) return false;
  return !inForeignHomeConfig(real, area.temp, area.home);
}

/**
 * Whether edits to `paths` may go ahead without asking under `mode`. Fails closed: `default`,
 * `plan`, an empty list, any sensitive path, any path whose real target is a regular file with
 * more than one hard link (counted as outside the workspace, in every mode), and any path whose
 * real target (symlinks resolved) is outside the project area all need the user.
 *
 * `accept_edits` and `dont_ask` share one policy: the project area is the cwd plus the system
 * temp dir, minus the home directory's dot entries (and minus the home directory itself when it
 * lies inside the temp dir). `dont_ask` is "don't ask about edits in my project"; writes to
 * `/etc`, `~/.gitconfig` or anywhere else outside still ask. Never throws. `area` defaults to
 * this machine's (`editArea(cwd)`); tests pass their own.
 */
export function editAutoApproved(
  mode: SessionMode,
  paths: readonly string[],
  cwd: string,
  protectedRoots: readonly string[] = [],
  area: EditArea = editArea(cwd),
): boolean {
  if (mode !== "accept_edits" && mode !== "dont_ask") return false;
  if (paths.length === 0) return false;
  return paths.every((path) => !isSensitivePath(path, protectedRoots) && hardLinkCount(path) <= 1 && inProjectArea(realTarget(path), area));
}

/** Kinds of tools plan mode lets run; plus the named tools below. Anything else is blocked. */
const PLAN_KINDS = new Set(["read", "search", "fetch", "think"]);
const PLAN_TOOLS = new Set(["todo", "memory", "session_search", "clarify"]);

/** The refusal a tool gets in plan mode, or undefined when it may run. An allow-list: unknown tools are blocked. */
export function planModeRefusal(tool: { name: string; kind: string }): string | undefined {
  if (PLAN_KINDS.has(tool.kind) || PLAN_TOOLS.has(tool.name)) return undefined;
  return (
    `Blocked in Plan mode: '${tool.name}' would change the workspace or run a command. Do not retry. ` +
    "Present your complete plan to the user as a normal message, then stop and wait — the user will review it " +
    "and switch out of Plan mode to let you proceed."
  );
}
