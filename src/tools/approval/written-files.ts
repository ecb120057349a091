/**
 * Files written earlier in the same command line, so that running them later is judged by what
 * was written: `echo "…" > x.sh; sh x.sh` is scanned as the echoed text,
 * `curl -o x.sh URL && bash x.sh` runs downloaded code, and `cp a x.sh; sh x.sh` runs a file
 * whose content the text does not show (`written` without `content`). A later write whose
 * content is unknown forgets the earlier known content.
 */
import { parseArgs } from "./argv.js";
import { isDownloader } from "./code-sources.js";
import { interpreterInvocation, isShell, shellInvocation } from "./interpreters.js";
import type { SimpleCommand } from "./simple-command.js";
import { staticStdout } from "./static-output.js";
import { copiedFiles, writeTargets } from "./write-targets.js";

/** Longest file content kept; longer content is treated as unknown. */
const MAX_CONTENT = 4096;

export interface WrittenFiles {
  /** Every path written so far, by `fileKey`. */
  written: Set<string>;
  /** Statically known content by path. */
  content: Map<string, string>;
  /** The downloader that wrote each path. */
  downloadedBy: Map<string, SimpleCommand>;
}

/** The lookup key of a path: `./x.sh`, `x.sh` and `.//x.sh` are one file. */
export function fileKey(path: string): string {
  return path.replace(/^(?:\.\/+)+/, "").replace(/\/{2,}/g, "/");
}

/** Records what `command` writes (redirected static output, `tee` of a known stdin, downloads, any other write target). */
export function recordWrittenFiles(command: SimpleCommand, files: WrittenFiles): void {
  const output = staticStdout({ ...command, redirects: [] });
  const content = output !== undefined && output.length <= MAX_CONTENT ? output : undefined;
  const known = new Set<string>();
  for (const redirect of command.redirects) {
    if (content === undefined || (redirect.fd !== undefined && redirect.fd !== 1)) continue;
    const key = fileKey(redirect.target);
    if (redirect.op === ">" || redirect.op === ">|" || redirect.op === "&>") files.content.set(key, content);
    else if (redirect.op === ">>" || redirect.op === "&>>") files.content.set(key, ((files.content.get(key) ?? "") + content).slice(0, MAX_CONTENT));
    else continue;
    known.add(key);
  }
  if (command.name === "tee" && command.stdin !== undefined && command.stdin.length <= MAX_CONTENT) {
    for (const target of parseArgs(command.args).operands) {
      files.content.set(fileKey(target), command.stdin);
      known.add(fileKey(target));
    }
  }
  if (isDownloader(command)) {
    for (const target of downloadTargets(command)) {
      files.downloadedBy.set(fileKey(target), command);
      files.written.add(fileKey(target));
      files.content.delete(fileKey(target));
    }
  }
  for (const target of [...writeTargets(command), ...copiedFiles(command)]) {
    const key = fileKey(target);
    files.written.add(key);
    if (!known.has(key)) files.content.delete(key);
  }
  for (const key of known) files.written.add(key);
}

/** Where a download lands: `-o`/`-O` targets, else (wget, `curl -O`) the URL's file name. */
function downloadTargets(command: SimpleCommand): string[] {
  const explicit = writeTargets(command);
  if (explicit.length > 0) return explicit;
  const parsed = parseArgs(command.args);
  const remoteName = command.name === "wget" || parsed.shorts.has("O") || parsed.longs.has("remote-name") || parsed.longs.has("remote-name-all");
  if (!remoteName) return [];
  return parsed.operands.filter((operand) => /^[a-z][a-z0-9+.-]*:\/\//i.test(operand)).map((url) => url.replace(/[?#].*$/, "").split("/").pop() ?? "");
}

/** The script file `command` runs, if any: `./x.sh`, `sh x.sh`, `source x`, `python x.py`. */
export function scriptRunBy(command: SimpleCommand, head: string | undefined): string | undefined {
  if (head !== undefined && head.includes("/")) return head;
  if (isShell(command.name)) return shellInvocation(command.args).script;
  if (command.name === "source" || command.name === ".") return command.args[0];
  return interpreterInvocation(command.name, command.args)?.script;
}

/** Lexical `.`/`..` resolution; `~/x` becomes `x` (the home directory is not known here); relative paths join `cwd` when given. */
function normalizePath(path: string, cwd: string | undefined): string {
  let full = path.replace(/^~[^/]*\/?/, "");
  if (!full.startsWith("/") && !path.startsWith("~") && cwd !== undefined) full = `${cwd}/${full}`;
  const segments: string[] = [];
  for (const segment of full.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return (full.startsWith("/") ? "/" : "") + segments.join("/");
}

/**
 * A test for "the agent wrote this file earlier in the session", from the session's written
 * paths (absolute, or relative to `cwd`) and the command's working directory. A path the
 * command spells relative matches a written path it is a suffix of (`x.sh` matches
 * `/work/x.sh`) when `cwd` is not known. Pure.
 */
export function sessionFileMatcher(paths: Iterable<string>, cwd?: string): (path: string) => boolean {
  const known = [...paths].map((path) => normalizePath(path, cwd)).filter((path) => path.length > 0);
  if (known.length === 0) return () => false;
  return (path) => {
    const target = normalizePath(path, cwd);
    if (target.length === 0) return false;
    return known.some(
      (written) => written === target || (!target.startsWith("/") && written.endsWith(`/${target}`)) || (!written.startsWith("/") && target.endsWith(`/${written}`)),
    );
  };
}
