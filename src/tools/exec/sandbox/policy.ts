import { existsSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { HERMES_CREDENTIAL_FILES } from "../../../config/secret-files.js";
import { escapeSockets, gitProtectedMounts } from "./hazards.js";
import type { SandboxMount } from "./mounts.js";

/**
 * What a session asks of the sandbox: fixed when the session starts (config.yaml `sandbox:`)
 * except `mode`, which follows the session mode (plan → read-only).
 * - `workspace-write`: everything readable except the hidden paths; writable: the cwd, temp and
 *   the tool caches; read-only even there: `.git/hooks`, `.git/config`, all of HERMES_HOME.
 * - `read-only`: nothing writable but temp.
 * - `off`: commands run as they are (approvals only).
 */
export type SandboxMode = "workspace-write" | "read-only" | "off";

export interface SandboxSettings {
  mode: SandboxMode;
  /** false cuts every network connection, the host's loopback included. */
  network: boolean;
  /** true refuses to run commands when no sandbox can be had, instead of running them unconfined. */
  required: boolean;
  /** Extra writable folders (`~` expanded), besides cwd, temp and the tool caches. */
  writableRoots: readonly string[];
  /** Tool caches a normal build writes (`~` expanded). */
  toolCaches: readonly string[];
  /** Extra paths hidden from commands (`~` expanded). */
  denyRead: readonly string[];
}

/**
 * Caches a build writes outside the project: npm, the XDG cache (pip, go-build, yarn v1, bun,
 * playwright…), cargo's registry and git checkouts, pnpm's store, Go modules, Gradle, Maven and
 * NuGet packages, yarn berry. Writable so `npm install` / `cargo build` / `go test` work sandboxed;
 * nothing there is run by the agent outside the sandbox.
 */
export const DEFAULT_TOOL_CACHES: readonly string[] = [
  "~/.npm",
  "~/.cache",
  "~/.cargo/registry",
  "~/.cargo/git",
  "~/.local/share/pnpm",
  "~/.pnpm-store",
  "~/go/pkg/mod",
  "~/.gradle/caches",
  "~/.m2/repository",
  "~/.nuget/packages",
  "~/.yarn/berry",
];

/**
 * Caches created when missing (empty folders in the user's home), so the first `npm install` or
 * `pip install` on a fresh machine has somewhere to write. The others are used only if present.
 */
const CREATED_CACHES: readonly string[] = ["~/.npm", "~/.cache"];

/** Credential stores hidden from every sandboxed command (besides HERMES_HOME's own). */
export const CREDENTIAL_PATHS: readonly string[] = [
  "~/.ssh",
  "~/.aws",
  "~/.gnupg",
  "~/.kube",
  "~/.docker/config.json",
  "~/.netrc",
  "~/.git-credentials",
  "~/.config/gcloud",
  "~/.config/gh/hosts.yml",
  "~/.azure",
  "~/.npmrc",
  "~/.pypirc",
  "~/.pgpass",
  "~/.vault-token",
  "~/.config/gh",
  "~/.config/hub",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.gem/credentials",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.mozilla",
  "~/.config/google-chrome",
  "~/.config/chromium",
  "~/.claude",
  "~/.codex",
  "/etc/shadow",
  "/etc/gshadow",
];

/**
 * Parts of the writable caches that hold programs the user runs later outside the sandbox
 * (pre-commit's hook environments, corepack's package managers, npx's packages, poetry's
 * virtualenvs): read-only, so a command cannot plant code there.
 */
export const EXECUTABLE_CACHES: readonly string[] = ["~/.cache/pre-commit", "~/.cache/node/corepack", "~/.npm/_npx", "~/.cache/pypoetry/virtualenvs"];

export type { SandboxMount } from "./mounts.js";

/** The concrete confinement of one command: a list of real, existing paths, shallowest first. */
export interface SandboxPlan {
  mode: Exclude<SandboxMode, "off">;
  network: boolean;
  mounts: SandboxMount[];
  /** Writable roots, for messages ("writes are allowed in …"). */
  writable: string[];
}

export interface PlanInput {
  settings: SandboxSettings;
  cwd: string;
  hermesHome: string;
  /** Folders this one call must write although they lie in a read-only area (the shell's state files). */
  callWritable?: readonly string[];
  /** Folders this one call must not write although they lie in a writable area (the shell's snapshots). */
  callReadOnly?: readonly string[];
  home?: string;
  tmp?: string;
}

/**
 * The mount plan for one command. Pure apart from reading which paths exist (and creating an
 * empty `.git/hooks` when a repository lacks one, so a command cannot plant a hook there).
 * Paths that do not exist are left out: a missing credential file in a read-only area cannot be
 * created, and a missing writable root has nothing to write. Every path is resolved to its real
 * path, so a symlinked home or temp dir is confined where it really is.
 */
export function planSandbox(input: PlanInput): SandboxPlan | undefined {
  const { settings } = input;
  if (settings.mode === "off") return undefined;
  const home = real(input.home ?? homedir());
  const expand = (path: string): string => realSettled(expandHome(path, home));
  // /dev/shm is the sandbox's own (bwrap's fresh /dev); /var/tmp stays read-only unless it is TMPDIR.
  const tmp = uniqueExisting([input.tmp ?? tmpdir(), "/tmp"].map(real));
  const cwd = real(input.cwd);
  const hermesHome = real(input.hermesHome);

  const entries: SandboxMount[] = [];
  const add = (path: string, access: SandboxMount["access"]): void => {
    if (path && existsSync(path)) entries.push({ path, access });
  };
  for (const dir of tmp) add(dir, "writable");
  const writable = [...tmp];
  // The home is read-only even where it lies inside temp or a writable root (as in tests).
  if (home !== cwd) add(home, "read-only");
  if (settings.mode === "workspace-write") {
    add(cwd, "writable");
    writable.push(cwd);
    // A workspace that is the home itself keeps its dotfiles (start-up files, ~/.config, ~/.local/bin) read-only.
    if (cwd === home) for (const dotfile of homeDotfiles(home)) add(dotfile, "read-only");
    for (const cache of CREATED_CACHES.filter((path) => settings.toolCaches.includes(path))) ensureDir(expand(cache));
    for (const root of [...settings.toolCaches, ...settings.writableRoots].map(expand)) {
      add(root, "writable");
      if (existsSync(root)) writable.push(root);
    }
    for (const cache of EXECUTABLE_CACHES.map(expand)) add(cache, "read-only");
    for (const mount of gitProtectedMounts(cwd)) add(mount.path, mount.access);
  } else {
    // Read-only means the workspace too, even one that lies inside temp.
    add(cwd, "read-only");
  }
  for (const path of input.callReadOnly ?? []) add(real(path), "read-only");
  for (const path of input.callWritable ?? []) add(real(path), "writable");
  add(hermesHome, "read-only");
  for (const name of HERMES_CREDENTIAL_FILES) add(join(hermesHome, name), "hidden");
  for (const path of [...CREDENTIAL_PATHS, ...settings.denyRead].map(expand)) add(path, "hidden");
  for (const path of escapeSockets(tmp)) add(path, "hidden");

  return { mode: settings.mode, network: settings.network, mounts: orderMounts(entries), writable: uniqueExisting(writable) };
}

/**
 * Shallowest first; on the same path the later entry wins (it is mounted last). Entries beneath
 * a hidden path are dropped: nothing inside a hidden folder is reachable. A read-only entry that
 * no writable mount before it contains is dropped too: the file system starts read-only, and
 * every mount costs the sandbox's start-up time.
 */
function orderMounts(entries: SandboxMount[]): SandboxMount[] {
  const lastByPath = new Map<string, SandboxMount>();
  for (const entry of entries) {
    lastByPath.delete(entry.path);
    lastByPath.set(entry.path, entry);
  }
  const unique = [...lastByPath.values()];
  const hidden = unique.filter((entry) => entry.access === "hidden").map((entry) => entry.path);
  const ordered = unique
    .filter((entry) => !hidden.some((dir) => dir !== entry.path && isInside(entry.path, dir)))
    .map((entry, index) => ({ entry, index, depth: entry.path.split(sep).length }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index)
    .map(({ entry }) => entry);
  const writableSoFar: string[] = [];
  return ordered.filter((entry) => {
    if (entry.access === "writable") writableSoFar.push(entry.path);
    return entry.access !== "read-only" || writableSoFar.some((root) => isInside(entry.path, root));
  });
}

function homeDotfiles(home: string): string[] {
  try {
    return readdirSync(home)
      .filter((name) => name.startsWith("."))
      .map((name) => join(home, name));
  } catch {
    return [];
  }
}

function ensureDir(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: 0o755 });
  } catch {
    // an unwritable home: the cache stays unavailable, and writes to it fail inside the sandbox
  }
}

export function expandHome(path: string, home: string = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return resolve(path);
}

/** The real path of `path`, or of its longest existing prefix joined with the rest. */
/** How long a resolved settings path is trusted before it is resolved again. */
const SETTLED_MS = 5000;
const settled = new Map<string, { real: string; at: number }>();

/**
 * `real` for the paths the settings name (credential stores, caches, deny_read — in the home or
 * /etc, which no sandboxed command can change), remembered for a few seconds: resolving ~40
 * paths on every command is most of the plan's cost.
 */
function realSettled(path: string): string {
  const now = Date.now();
  const hit = settled.get(path);
  if (hit && now - hit.at < SETTLED_MS) return hit.real;
  const resolved = real(path);
  settled.set(path, { real: resolved, at: now });
  return resolved;
}

export function real(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(real(parent), absolute.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}

export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function uniqueExisting(paths: string[]): string[] {
  return [...new Set(paths)].filter((path) => existsSync(path));
}
