/**
 * Lexical path classification for the rules: protected delete targets (root, system
 * directories, home), raw block devices, and sensitive write targets. Paths are never touched
 * on disk; `~`, `~user`, `/home/<user>`, `/Users/<user>` and `/root` all count as a home
 * directory, so no knowledge of the current user is needed.
 */
import { UNKNOWN } from "./normalize.js";

interface ParsedPath {
  anchor: "/" | "~" | "relative";
  /** Components after the anchor, `.` dropped and `..` resolved lexically. */
  segments: string[];
  /** True when `..` climbed above `~`. */
  escapesHome: boolean;
}

function parsePath(path: string): ParsedPath {
  const pieces = path.split("/");
  let anchor: ParsedPath["anchor"] = "relative";
  if (path.startsWith("/")) {
    anchor = "/";
    pieces.shift();
  } else if (/^~[^/]*$/.test(pieces[0] ?? "")) {
    anchor = "~";
    pieces.shift();
  }
  const segments: string[] = [];
  let escapesHome = false;
  for (const piece of pieces) {
    if (piece === "" || piece === ".") continue;
    if (piece === "..") {
      if (segments.length > 0) segments.pop();
      else if (anchor === "~") escapesHome = true;
      else if (anchor === "relative") segments.push(piece);
      continue;
    }
    segments.push(piece);
  }
  return { anchor, segments, escapesHome };
}

/** Glob, brace, unknown or variable text: the component could expand to anything. */
function isWild(segment: string): boolean {
  return /[*?[{$]/.test(segment) || segment.includes(UNKNOWN);
}

/** Trailing `*`, `.*`, `.?*`-style components: "the contents of" the directory before them. */
function isContentsGlob(segment: string): boolean {
  return /^\.?[*?]+$/.test(segment) || segment === ".[!.]*" || segment === "..?*";
}

const SYSTEM_TOP = new Set([
  "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "opt", "proc", "root", "run", "sbin", "srv", "sys", "usr",
  "var", "snap", "mnt", "media", "nix", "applications", "library", "system", "users", "volumes", "private", "cores",
]);
const HOME_PARENTS = new Set(["home", "users"]);
const SYSTEM_SECOND = new Set(["var/lib", "private/etc", "private/var", "system/library"]);

export type ProtectedTarget = "root" | "system" | "home";

const SEVERITY: readonly ProtectedTarget[] = ["root", "system", "home"];

/**
 * Classifies a delete target (after brace expansion, the most severe alternative wins);
 * undefined for anything that is not root, a system directory or a home.
 */
export function classifyDeleteTarget(path: string): ProtectedTarget | undefined {
  const found = new Set(expandBraces(path).map(classifyOne));
  return SEVERITY.find((target) => found.has(target));
}

/** Expands `{a,b}` alternatives (innermost first, at most 64 results); other text is kept. */
function expandBraces(text: string): string[] {
  let results = [text];
  for (let round = 0; round < 8; round++) {
    let changed = false;
    results = results.flatMap((item) => {
      const match = /\{([^{}]*,[^{}]*)\}/.exec(item);
      if (!match) return [item];
      changed = true;
      const before = item.slice(0, match.index);
      const after = item.slice(match.index + match[0].length);
      return (match[1] ?? "").split(",").map((alternative) => before + alternative + after);
    });
    if (!changed || results.length > 64) break;
  }
  return results.slice(0, 64);
}

function classifyOne(path: string): ProtectedTarget | undefined {
  const parsed = parsePath(path);
  const segments = parsed.segments.map((segment) => segment.toLowerCase());
  while (segments.length > 0 && isContentsGlob(segments[segments.length - 1] as string)) segments.pop();
  if (parsed.anchor === "~") return segments.length === 0 || parsed.escapesHome || isWild(segments[0] as string) ? "home" : undefined;
  if (parsed.anchor !== "/") return undefined;
  const [top, second] = segments;
  if (top === undefined || isWild(top)) return "root";
  if (segments.length === 1) return top === "root" ? "home" : SYSTEM_TOP.has(top) ? "system" : undefined;
  if (segments.length === 2 && second !== undefined) {
    if (HOME_PARENTS.has(top)) return "home";
    if (top === "usr" || SYSTEM_SECOND.has(`${top}/${second}`)) return "system";
    if (SYSTEM_TOP.has(top) && isWild(second)) return "system";
  }
  return undefined;
}

const RAW_DEVICE_RE =
  /^\/dev\/(?:(?:sd|hd|vd|xvd)[a-z]+\d*|nvme\d+(?:n\d+(?:p\d+)?)?|mmcblk\d+(?:p\d+)?|md\d+|dm-\d+|loop\d+|nbd\d+|r?disk\d+(?:s\d+)*|mapper\/.+|disk\/by-[a-z]+\/.+)$/;

/** True for a raw block device node (`/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`, `/dev/mapper/x`). */
export function isRawDevice(path: string): boolean {
  return expandBraces(path).some((alternative) => {
    const parsed = parsePath(alternative);
    return parsed.anchor === "/" && RAW_DEVICE_RE.test(`/${parsed.segments.join("/")}`);
  });
}

export type WriteTargetKey = "write_hermes_config" | "write_ssh" | "write_shell_rc" | "write_credentials" | "write_env_file" | "write_etc";

const SHELL_RC = new Set([
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
  ".kshrc", ".cshrc", ".tcshrc", ".inputrc", "config.fish",
]);
const CREDENTIAL_FILES = new Set([".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", ".my.cnf"]);
const CREDENTIAL_PATHS = [".aws/credentials", ".aws/config", ".kube/config", ".docker/config.json", ".config/gh/hosts.yml"];
/** `.env.*` files that hold examples, not secrets. */
const ENV_TEMPLATE_RE = /^\.env\.(?:example|sample|template|dist|defaults?)$/;

/** Which sensitive location a write to `path` touches, if any (the first alternative of a brace expansion that does). */
export function classifyWriteTarget(path: string): WriteTargetKey | undefined {
  for (const alternative of expandBraces(path)) {
    const key = classifyWriteOne(alternative);
    if (key) return key;
  }
  return undefined;
}

function classifyWriteOne(path: string): WriteTargetKey | undefined {
  const parsed = parsePath(path);
  const segments = parsed.segments.map((segment) => segment.toLowerCase());
  const base = segments[segments.length - 1] ?? "";
  const joined = segments.join("/");
  if (/^\$\{?HERMES_HOME\b/.test(path) || segments.includes(".hermes")) return "write_hermes_config";
  if (segments.includes(".ssh")) return "write_ssh";
  if (SHELL_RC.has(base)) return "write_shell_rc";
  if (CREDENTIAL_FILES.has(base) || CREDENTIAL_PATHS.some((suffix) => joined.endsWith(suffix))) return "write_credentials";
  if ((base === ".env" || base === ".envrc" || base.startsWith(".env.")) && !ENV_TEMPLATE_RE.test(base)) return "write_env_file";
  if (parsed.anchor === "/" && (segments[0] === "etc" || (segments[0] === "private" && segments[1] === "etc"))) return "write_etc";
  return undefined;
}
