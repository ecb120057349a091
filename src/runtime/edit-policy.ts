import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** Session modes: how edits are approved, and whether anything but reading may run. */
export type SessionMode = "default" | "accept_edits" | "dont_ask" | "plan";

export interface ModeInfo {
  id: SessionMode;
  name: string;
  description: string;
}

export const SESSION_MODES: readonly ModeInfo[] = [
  { id: "default", name: "Default", description: "Ask before edits." },
  { id: "accept_edits", name: "Accept Edits", description: "Auto-allow workspace and temp-dir edits; still asks for sensitive paths." },
  { id: "dont_ask", name: "Don't Ask", description: "Auto-allow file edits for this session except sensitive paths." },
  { id: "plan", name: "Plan", description: "Read and search only; the agent presents a plan instead of changing anything." },
];

export function isSessionMode(value: unknown): value is SessionMode {
  return SESSION_MODES.some((mode) => mode.id === value);
}

const SENSITIVE_DIRS = new Set([".git", ".ssh", ".aws", ".gnupg"]);
const SENSITIVE_FILES = new Set([
  ".env",
  "id_rsa",
  "id_ed25519",
  // shell start-up files and credential stores: an edit there runs or leaks on the next login
  ".bashrc",
  ".bash_profile",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".netrc",
  ".npmrc",
  ".pypirc",
]);

/**
 * True when a path must always be asked about, whatever the mode: a `.git`, `.ssh`, `.aws` or
 * `.gnupg` component, a `.env*` file, an SSH private key, a shell start-up file or credential
 * store, or anything under `protectedRoots` (HERMES_HOME: its config.yaml can switch approvals
 * off). Checked on the path as written and on its real target, so a symlink to `.env` counts too.
 */
export function isSensitivePath(path: string, protectedRoots: readonly string[] = []): boolean {
  if (protectedRoots.some((root) => isInside(path, root))) return true;
  return [path, realTarget(path)].some((candidate) => {
    const parts = candidate.split(sep).map((part) => part.toLowerCase());
    if (parts.some((part) => SENSITIVE_DIRS.has(part))) return true;
    const name = basename(candidate).toLowerCase();
    return SENSITIVE_FILES.has(name) || name.startsWith(".env");
  });
}

/** The real path of `path`, resolving symlinks of the longest existing prefix. */
export function realTarget(path: string): string {
  const absolute = resolve(path);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(realTarget(root), realTarget(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Whether edits to `paths` may go ahead without asking under `mode`. Fails closed: `default`,
 * `plan`, any sensitive path, and (for `accept_edits`) any path outside the cwd and the temp
 * directory all need the user.
 */
export function editAutoApproved(mode: SessionMode, paths: readonly string[], cwd: string, protectedRoots: readonly string[] = []): boolean {
  if (paths.length === 0 || paths.some((path) => isSensitivePath(path, protectedRoots))) return false;
  switch (mode) {
    case "dont_ask":
      return true;
    case "accept_edits":
      return paths.every((path) => isInside(path, cwd) || isInside(path, tmpdir()));
    default:
      return false;
  }
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
