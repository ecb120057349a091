import { lstatSync, statSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";

/**
 * Files the file tools (read_file, search_files) never show: the credential files of
 * `$HERMES_HOME` and the environment of any process (`/proc/<pid>/environ`), which holds every
 * key the agent was started with. Commands are kept away from them by the sandbox; this is the
 * same rule for the tools that read files in-process.
 */

/** Files in HERMES_HOME that hold credentials (Python Hermes keeps OAuth tokens in auth.json). */
export const HERMES_CREDENTIAL_FILES: readonly string[] = [".env", "auth.json", ".anthropic_oauth.json"];

/** `/proc/<pid|self|thread-self>/environ` and the per-thread `/proc/<pid>/task/<tid>/environ`. */
const ENVIRON_RE = /^\/proc\/(?:\d+|self|thread-self)(?:\/task\/\d+)?\/environ$/;

/** Paths compare case-insensitively where the usual file systems do. */
const FOLD_CASE = process.platform === "darwin" || process.platform === "win32";
const fold = (p: string): string => (FOLD_CASE ? p.toLowerCase() : p);

/** The credential files of one HERMES_HOME, resolved once; checks on it are synchronous. */
export interface SecretFiles {
  /**
   * Why `absolute` names a secret file, or undefined. Pure string checks against the home's
   * paths (lexical and real), the real paths the credential files point to, and the `/proc`
   * environ pattern; pass a real path as well as the lexical one to see through symbolic links.
   */
  reasonFor(absolute: string): string | undefined;
  /** True when some existing secret file lies at or below `dirReal` (a real directory path). */
  anyBelow(dirReal: string): boolean;
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest; never throws. */
export async function realOrResolved(p: string): Promise<string> {
  const absolute = path.resolve(p);
  try {
    return await realpath(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(await realOrResolved(parent), path.basename(absolute));
  }
}

/**
 * Resolves the secret files of `hermesHome`: `.env`, `auth.json` and `.anthropic_oauth.json` in it
 * and in its `profiles/<name>/` folders, plus the files those names link to. Never throws.
 */
export async function secretFiles(hermesHome: string): Promise<SecretFiles> {
  const homes = [...new Set([path.resolve(hermesHome), await realOrResolved(hermesHome)])];
  // Absent ones are the common case: an lstat that answers undefined (no error object, no
  // thread-pool round trip) rules each out; the rest are resolved together.
  const found = await Promise.all(
    HERMES_CREDENTIAL_FILES.map((name) => {
      const file = path.join(homes[0] as string, name);
      return exists(file) ? realpath(file).catch(() => undefined) : undefined;
    }),
  );
  const existing = found.filter((real): real is string => real !== undefined);
  const targets = new Set(existing.map(fold));
  const reasonFor = (absolute: string): string | undefined => {
    const candidate = path.resolve(absolute);
    if (ENVIRON_RE.test(candidate)) {
      return `${absolute} is a process environment, which holds the agent's credentials`;
    }
    if (targets.has(fold(candidate)) || homes.some((home) => isHomeCredentialFile(candidate, home))) {
      return `${absolute} holds Hermes credentials (a credential file of HERMES_HOME)`;
    }
    return undefined;
  };
  const anyBelow = (dirReal: string): boolean => {
    const dir = fold(path.resolve(dirReal));
    if (isInside("/proc", dir) || isInside(dir, "/proc")) return true;
    return existing.some((file) => isInside(dir, fold(file))) || homes.some((home) => isInside(dir, fold(home)));
  };
  return { reasonFor, anyBelow };
}

/** `<home>/<credential file>` or `<home>/profiles/<name>/<credential file>`. */
function isHomeCredentialFile(candidate: string, home: string): boolean {
  const rel = path.relative(fold(home), fold(candidate));
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return false;
  const parts = rel.split(path.sep);
  const name = parts[parts.length - 1] as string;
  const inHome = parts.length === 1 || (parts.length === 3 && parts[0] === "profiles");
  return inHome && HERMES_CREDENTIAL_FILES.some((file) => fold(file) === name);
}

/** True when `child` is `parent` or lies below it (both absolute, normalized). */
function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Why the file at `absolute` must not be read or searched, or undefined when it may be: see
 * `SecretFiles.reasonFor`, checked on the path as given and on its real path (symbolic links,
 * `..`, `/proc/self` resolved), and on its identity (device and inode), so a hard link to a
 * credential file is refused too. The message names the path and why. Never throws.
 */
export async function secretFileReason(absolute: string, hermesHome: string): Promise<string | undefined> {
  const [files, real] = await Promise.all([secretFiles(hermesHome), realOrResolved(absolute)]);
  const reason = files.reasonFor(absolute) ?? (real !== absolute ? files.reasonFor(real) : undefined);
  if (reason) return reason;
  if (!(await sameFileAsCredential(absolute, hermesHome))) return undefined;
  return `${absolute} holds Hermes credentials (it is the same file as a credential file of HERMES_HOME)`;
}

async function sameFileAsCredential(absolute: string, hermesHome: string): Promise<boolean> {
  let target;
  try {
    target = await stat(absolute);
  } catch {
    return false;
  }
  if (!target.isFile()) return false;
  return HERMES_CREDENTIAL_FILES.some((name) => {
    const credential = statOrUndefined(path.join(hermesHome, name));
    return credential !== undefined && credential.dev === target.dev && credential.ino === target.ino;
  });
}

/** Whether `file` exists as a directory entry (a dangling link counts); never throws. */
function exists(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true; // unreadable in some other way: let the lookup that follows decide
  }
}

/** `stat` of `file` (links followed), undefined when it is absent or unreadable; never throws. */
function statOrUndefined(file: string): ReturnType<typeof statSync> {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
