import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What the sandbox's mounts cannot stop because it does not exist when a command starts: a
 * repository created during the call (`git init`, then a hook or `core.fsmonitor`), a `.git` file
 * or `commondir` pointing git at a folder full of hooks, `config.worktree`. The terminal takes a
 * snapshot before a sandboxed call and, after it, undoes exactly these changes and says so.
 * Legitimate work is untouched: a fresh `git init` has only sample hooks and a plain config.
 */

interface RepoState {
  dotGit: "dir" | "file" | "none";
  gitFile?: string;
  extras: Set<string>;
}

export type GitSnapshot = Map<string, RepoState>;

/** Files in a git folder that redirect git to other hooks or config. */
const REDIRECTS = ["commondir", "config.worktree"];
const MAX_REPOS = 200;

/**
 * Config entries that make git run a program: hooks paths, fsmonitor, ssh/pager/editor
 * commands, shell aliases, filters and diff drivers, credential helpers, includes (which could
 * pull in any of these).
 */
const EXEC_KEY = /^(?:core\.(?:fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|worktree)|alias\..*|filter\..*|diff\..*\.(?:textconv|command)|diff\.external|merge\..*\.driver|credential\..*|sequence\.editor|gpg\..*program|uploadpack\.packobjectshook|include\..*|includeif\..*|pager\..*|init\.templatedir)$/;

function repoDirs(cwd: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(cwd, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .slice(0, MAX_REPOS);
  } catch {
    // an unreadable workspace: nothing to watch
  }
  return [cwd, ...names.map((name) => join(cwd, name))];
}

function stateOf(repo: string): RepoState {
  const dotGit = join(repo, ".git");
  try {
    const stat = lstatSync(dotGit);
    if (stat.isFile()) return { dotGit: "file", gitFile: readFileSync(dotGit, "utf8"), extras: new Set() };
    if (!stat.isDirectory()) return { dotGit: "none", extras: new Set() };
    return { dotGit: "dir", extras: new Set(REDIRECTS.filter((name) => existsSync(join(dotGit, name)))) };
  } catch {
    return { dotGit: "none", extras: new Set() };
  }
}

/** The git state of `cwd` and its direct subfolders. Never throws. */
export function snapshotGit(cwd: string): GitSnapshot {
  return new Map(repoDirs(cwd).map((repo) => [repo, stateOf(repo)]));
}

/**
 * Undoes what a call planted since `before` (see the module comment); returns one note per
 * change, for the command's result. Never throws.
 */
export function repairGit(cwd: string, before: GitSnapshot): string[] {
  const notes: string[] = [];
  for (const repo of repoDirs(cwd)) {
    const was = before.get(repo) ?? { dotGit: "none", extras: new Set<string>() };
    const now = stateOf(repo);
    const dotGit = join(repo, ".git");
    try {
      if (now.dotGit === "file" && was.dotGit !== "file") {
        rmSync(dotGit, { force: true });
        notes.push(`removed ${dotGit}: a .git file written by the command would point git at hooks outside the sandbox`);
      } else if (now.dotGit === "file" && was.gitFile !== undefined && now.gitFile !== was.gitFile) {
        writeFileSync(dotGit, was.gitFile);
        notes.push(`restored ${dotGit}: the command changed where it points`);
      } else if (now.dotGit === "dir") {
        for (const name of REDIRECTS) {
          if (now.extras.has(name) && !was.extras.has(name)) {
            rmSync(join(dotGit, name), { force: true });
            notes.push(`removed ${join(dotGit, name)}: it would make git read hooks or config from elsewhere`);
          }
        }
        if (was.dotGit === "none") notes.push(...disarmNewRepository(dotGit));
      }
    } catch {
      notes.push(`could not check ${dotGit} after the command; look at its hooks and config before running git outside the sandbox`);
    }
  }
  return notes.map((note) => `[sandbox] ${note}.`);
}

/** A repository the call created: its non-sample hooks and program-running config entries go. */
function disarmNewRepository(gitDir: string): string[] {
  const notes: string[] = [];
  const hooks = join(gitDir, "hooks");
  let names: string[] = [];
  try {
    names = readdirSync(hooks).filter((name) => !name.endsWith(".sample"));
  } catch {
    // no hooks folder
  }
  for (const name of names) rmSync(join(hooks, name), { recursive: true, force: true });
  if (names.length) notes.push(`removed hooks the command planted in the new repository (${names.join(", ")})`);
  const configPath = join(gitDir, "config");
  if (!existsSync(configPath)) return notes;
  const { text, removed } = withoutExecEntries(readFileSync(configPath, "utf8"));
  if (removed.length) {
    writeFileSync(configPath, text);
    notes.push(`removed config entries that run programs from the new repository's config (${removed.join(", ")})`);
  }
  return notes;
}

/**
 * `config` without the entries `EXEC_KEY` matches (whole `include` / `includeIf` sections too).
 * Line-based, as git's own format is: a `[section "sub"]` header, then `key = value` lines;
 * continuation lines of a removed entry go with it. Pure.
 */
export function withoutExecEntries(config: string): { text: string; removed: string[] } {
  const removed: string[] = [];
  const kept: string[] = [];
  let section = "";
  let dropping = false;
  for (const line of config.split("\n")) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      const name = header[1]!.toLowerCase();
      const sub = header[2];
      section = sub !== undefined ? `${name}.${sub.toLowerCase()}` : name;
      dropping = false;
      kept.push(line);
      continue;
    }
    if (dropping) {
      dropping = /\\\s*$/.test(line);
      continue;
    }
    const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$)/.exec(line);
    if (entry && section) {
      const key = `${section}.${entry[1]!.toLowerCase()}`;
      const shellAlias = section === "alias" ? /=\s*!/.test(line) || /=\s*"\s*!/.test(line) : true;
      if (EXEC_KEY.test(key) && shellAlias) {
        removed.push(key);
        dropping = /\\\s*$/.test(line);
        continue;
      }
    }
    dropping = false;
    kept.push(line);
  }
  return { text: kept.join("\n"), removed };
}
