/**
 * How `git` treats its command line, for the git rules and the scanner: the subcommand after the
 * global options, the configuration a command sets (`git -c key=value …`, `git --config-env`,
 * `git config [set] key value`), which of those settings make git run programs, and the shell
 * text such settings hold (`alias.x=!rm -rf ~`), which the scanner then scans like `sh -c`.
 * Pure and lexical: nothing is read from disk.
 */
import { parseArgs } from "./argv.js";
import type { SimpleCommand } from "./simple-command.js";

export interface GitCall {
  /** The subcommand, lower-cased (`reset`, `push`, …). */
  sub: string;
  /** Arguments after the subcommand. */
  args: string[];
}

export interface GitConfigSetting {
  /** The key, lower-cased (`core.hookspath`, `alias.x`). */
  key: string;
  value: string;
  /** True for `git config` (stays in a config file); false for a one-shot `git -c`. */
  persistent: boolean;
}

const VALUE_OPTIONS = /^(?:-C|-c|--git-dir|--work-tree|--namespace|--exec-path|--super-prefix|--config-env)$/;

function globalOptions(args: readonly string[]): { end: number; settings: GitConfigSetting[] } {
  const settings: GitConfigSetting[] = [];
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith("-")) {
    const arg = args[i] as string;
    const value = args[i + 1];
    if ((arg === "-c" || arg === "--config-env") && value !== undefined) settings.push(splitSetting(value));
    else if (arg.startsWith("--config-env=")) settings.push(splitSetting(arg.slice("--config-env=".length)));
    i += VALUE_OPTIONS.test(arg) ? 2 : 1;
  }
  return { end: i, settings };
}

function splitSetting(text: string): GitConfigSetting {
  const eq = text.indexOf("=");
  // `-c key` alone sets the key to true; `--config-env key=VAR` takes the value from VAR (unknown here).
  return eq === -1 ? { key: text.toLowerCase(), value: "true", persistent: false } : { key: text.slice(0, eq).toLowerCase(), value: text.slice(eq + 1), persistent: false };
}

/** The subcommand and its arguments; undefined for anything but `git <sub> …`. */
export function gitCall(command: SimpleCommand): GitCall | undefined {
  if (command.name !== "git") return undefined;
  const { end } = globalOptions(command.args);
  const sub = command.args[end];
  return sub === undefined ? undefined : { sub: sub.toLowerCase(), args: command.args.slice(end + 1) };
}

const CONFIG_READ_LONGS = /^(?:get|get-all|get-regexp|get-urlmatch|get-color|get-colorbool|unset|unset-all|list|rename-section|remove-section|edit|name-only)$/;

/** The settings `git config` writes (`git config [--global] key value`, `git config set key value`). */
function configWrites(args: readonly string[]): GitConfigSetting[] {
  let rest = args;
  if (rest[0] === "set") rest = rest.slice(1);
  else if (rest[0] !== undefined && /^(?:get|list|unset|rename-section|remove-section|edit)$/.test(rest[0])) return [];
  const parsed = parseArgs(rest, { shortValue: "f", longValue: ["file", "blob", "type", "default", "comment", "value"] });
  if ([...parsed.longs].some((long) => CONFIG_READ_LONGS.test(long)) || parsed.shorts.has("l") || parsed.shorts.has("e")) return [];
  const [key, value] = parsed.operands;
  return key === undefined || value === undefined ? [] : [{ key: key.toLowerCase(), value, persistent: true }];
}

/** Every configuration setting the command makes, one-shot (`-c`) and persistent (`git config`). */
export function gitConfigSettings(command: SimpleCommand): GitConfigSetting[] {
  if (command.name !== "git") return [];
  const { end, settings } = globalOptions(command.args);
  if (command.args[end]?.toLowerCase() === "config") settings.push(...configWrites(command.args.slice(end + 1)));
  return settings;
}

/** Keys naming a program or shell command git runs later. */
const EXEC_KEYS =
  /^(?:core\.(?:fsmonitor|sshcommand|pager|editor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|(?:merge|diff)tool\..+\.cmd|filter\..+\.(?:clean|smudge|process)|gpg\.(?:.+\.)?program|pager\..+|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack)|include\.path|includeif\..+\.path|browser\..+\.cmd|man\..+\.cmd|web\.browser)$/;
/** Keys that run a shell command only when the value starts with `!`. */
const BANG_KEYS = /^(?:alias\..+|credential(?:\..+)?\.helper|submodule\..+\.update)$/;
/** Pager, editor and browser values that are one well-known program with plain options. */
const PLAIN_VIEWER = /^(?:(?:\S*\/)?(?:cat|less|more|most|bat|delta|diff-so-fancy|vim?|nvim|nano|emacs|emacsclient|code|subl|micro|hx|true)(?:\s+-{1,2}[\w-]+(?:=[\w.,:-]*)?)*)?$/;
const PLAIN_SSH = /^(?:\S*\/)?ssh(?:\s+[^\s;|&$`<>()\\]+)*$/;
const PLAIN_GPG = /^(?:\S*\/)?(?:gpg2?|gpgsm|ssh-keygen)$/;

export type GitConfigRisk = "hooks" | "exec";

/**
 * Whether a setting changes which hooks run (`core.hooksPath`, `init.templateDir`; `/dev/null`
 * and empty, which disable hooks, are fine) or makes git run a program (`core.fsmonitor`,
 * `core.pager`, `alias.x=!…`, `filter.*.clean`, `include.path`, …). Plain pagers, editors,
 * `ssh` with options and gpg are fine.
 */
export function gitConfigRisk({ key, value }: GitConfigSetting): GitConfigRisk | undefined {
  const trimmed = value.trim();
  if (key === "core.hookspath" || key === "init.templatedir") return trimmed === "" || trimmed === "/dev/null" ? undefined : "hooks";
  if (BANG_KEYS.test(key)) return trimmed.startsWith("!") ? "exec" : undefined;
  if (key === "protocol.ext.allow") return trimmed === "never" ? undefined : "exec";
  if (!EXEC_KEYS.test(key)) return undefined;
  if (/^(?:core\.pager|core\.editor|sequence\.editor|pager\..+|web\.browser)$/.test(key) && PLAIN_VIEWER.test(trimmed)) return undefined;
  if (key === "core.sshcommand" && PLAIN_SSH.test(trimmed) && !/proxycommand|localcommand/i.test(trimmed)) return undefined;
  if (/^gpg\./.test(key) && PLAIN_GPG.test(trimmed)) return undefined;
  if (key === "core.fsmonitor" && /^(?:true|false)$/i.test(trimmed)) return undefined;
  return "exec";
}

/** Keys whose value git hands to a shell. */
const SHELL_VALUE_KEYS =
  /^(?:core\.(?:fsmonitor|sshcommand|pager|editor|askpass)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|(?:merge|diff)tool\..+\.cmd|filter\..+\.(?:clean|smudge|process)|pager\..+|alias\..+|credential(?:\..+)?\.helper|submodule\..+\.update)$/;

/** Shell text that the command's configuration settings make git run (`alias.x=!rm -rf ~` gives `rm -rf ~`). */
export function gitShellCommands(command: SimpleCommand): string[] {
  return gitConfigSettings(command)
    .filter((setting) => SHELL_VALUE_KEYS.test(setting.key) && gitConfigRisk(setting) === "exec")
    .map((setting) => setting.value.trim().replace(/^!/, ""));
}

/** `./a//b/./c` → `a/b/c`: no `.` components, no doubled slashes. */
function tidy(path: string): string {
  return path
    .split("/")
    .filter((piece, index) => piece !== "." && (piece !== "" || index === 0))
    .join("/");
}

const HOOKS_DIR_RE = /(?:^|\/)(?:[^/]*\.git|\$\{?GIT_DIR\}?|[^/]*\u0001[^/]*)(?:\/(?:modules|worktrees)\/[^/]+)*\/hooks(?:\/|$)/i;

/** True for `.git/hooks` (or a bare repo's, a submodule's, `$GIT_DIR/hooks`, `$(git rev-parse --git-dir)/hooks`) and files in it. */
export function isGitHooksPath(path: string): boolean {
  return HOOKS_DIR_RE.test(tidy(path));
}

/** True for a git configuration file: a repository's `.git/config`, `~/.gitconfig`, `~/.config/git/config`, `/etc/gitconfig`. */
export function isGitConfigFile(path: string): boolean {
  const clean = tidy(path).replace(/\/$/, "");
  return /(?:^|\/)\.gitconfig$/.test(clean) || /(?:^|\/)[^/]*\.git\/config$/.test(clean) || /(?:^|\/)\.config\/git\/config$/.test(clean) || clean === "/etc/gitconfig";
}
