/**
 * Commands that run another command given in their arguments (`sudo`, `env`, `nohup`,
 * `timeout`, `nice`, `xargs`, …), and package runners that run a tool (`npx cdk`, `pnpm dlx`,
 * `uv run`, `poetry run`, `bundle exec`). Peeling them puts the real command in command
 * position, so rules match `sudo rm -rf x` as `rm` and `npx cdk destroy` as `cdk`. Wrappers
 * that take a command *string* (`su -c`, `flock -c`, `watch`, `npx -c`) peel to
 * `sh -c <string>`, which the scanner then parses as a script.
 */
import { commandName, optionValues, parseArgs, splitFields, type ArgSpec, type ParsedArgs } from "./argv.js";

/** Inner argv of a wrapper, or undefined when this invocation runs no command (`command -v x`). */
type Peel = (args: readonly string[], stdin: string | undefined) => string[] | undefined;

const ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*=/;

function dropAssignments(argv: readonly string[]): string[] {
  let i = 0;
  while (i < argv.length && ASSIGNMENT_RE.test(argv[i] as string)) i++;
  return argv.slice(i);
}

function posix(spec: Omit<ArgSpec, "stopAtOperand"> = {}): (args: readonly string[]) => ParsedArgs {
  return (args) => parseArgs(args, { ...spec, stopAtOperand: true });
}

const sudoArgs = posix({
  shortValue: "ugpCDrtTU",
  longValue: ["user", "group", "prompt", "close-from", "chdir", "role", "type", "command-timeout", "other-user", "host"],
});
const envArgs = posix({ shortValue: "uCS", longValue: ["unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal"] });
const suArgs = parseArgs;

const npxArgs = posix({ shortValue: "pc", longValue: ["package", "call", "node-options", "registry", "cache", "userconfig", "workspace", "prefix"] });

/** `npx [opts] tool args`, `npx -c 'cmd'`: the tool's argv, or `sh -c` for a command string. */
function npxPeel(args: readonly string[]): string[] | undefined {
  const parsed = npxArgs(args);
  const call = optionValues(parsed, "c", "call")[0];
  if (call !== undefined) return ["sh", "-c", call];
  return parsed.operands.length === 0 ? undefined : parsed.operands;
}

/** Runners that run a tool only after a subcommand (`pnpm dlx x`, `uv run x`, `bundle exec x`), with the options that take values. */
function subcommandRunner(subs: readonly string[], spec: Omit<ArgSpec, "stopAtOperand"> = {}): Peel {
  return (args) => {
    if (args[0] === undefined || !subs.includes(args[0])) return undefined;
    const operands = posix(spec)(args.slice(1)).operands;
    return operands.length === 0 ? undefined : operands;
  };
}

const UV_RUN_VALUES: readonly string[] = ["with", "with-requirements", "with-editable", "python", "project", "directory", "env-file", "extra", "group", "package", "index", "index-url", "from", "script"];

const uvRun = subcommandRunner(["run"], { shortValue: "p", longValue: UV_RUN_VALUES });

const PEELERS: Record<string, Peel> = {
  sudo: (args) => {
    const parsed = sudoArgs(args);
    return parsed.shorts.has("e") ? [] : dropAssignments(parsed.operands);
  },
  doas: (args) => posix({ shortValue: "uC" })(args).operands,
  pkexec: (args) => posix({ longValue: ["user"] })(args).operands,
  run0: (args) => posix({ shortValue: "uD", longValue: ["user", "chdir", "setenv", "unit", "property", "description", "slice", "nice", "machine"] })(args).operands,
  su: (args) => {
    const parsed = suArgs(args, { shortValue: "cgGsw", longValue: ["command", "session-command", "group", "supp-group", "shell", "whitelist-environment"] });
    const payload = optionValues(parsed, "c", "command", "session-command")[0];
    return payload === undefined ? [] : ["sh", "-c", payload];
  },
  env: (args) => {
    const parsed = envArgs(args);
    const split = optionValues(parsed, "S", "split-string").flatMap(splitFields);
    return dropAssignments([...split, ...parsed.operands]);
  },
  nohup: (args) => posix()(args).operands,
  setsid: (args) => posix()(args).operands,
  exec: (args) => posix({ shortValue: "a" })(args).operands,
  command: (args) => {
    const parsed = posix()(args);
    return parsed.shorts.has("v") || parsed.shorts.has("V") ? undefined : parsed.operands;
  },
  builtin: (args) => [...args],
  time: (args) => posix({ shortValue: "of", longValue: ["output", "format"] })(args).operands,
  nice: (args) => posix({ shortValue: "n", longValue: ["adjustment"] })(args).operands,
  ionice: (args) => {
    const parsed = posix({ shortValue: "cnpPu", longValue: ["class", "classdata", "pid", "pgid", "uid"] })(args);
    return optionValues(parsed, "p", "P", "u", "pid", "pgid", "uid").length > 0 ? undefined : parsed.operands;
  },
  timeout: (args) => posix({ shortValue: "sk", longValue: ["signal", "kill-after"] })(args).operands.slice(1),
  stdbuf: (args) => posix({ shortValue: "ioe", longValue: ["input", "output", "error"] })(args).operands,
  chrt: (args) => {
    const parsed = posix()(args);
    return parsed.shorts.has("p") || parsed.longs.has("pid") ? undefined : parsed.operands.slice(1);
  },
  taskset: (args) => {
    const parsed = posix()(args);
    return parsed.shorts.has("p") || parsed.longs.has("pid") ? undefined : parsed.operands.slice(1);
  },
  caffeinate: (args) => posix({ shortValue: "tw" })(args).operands,
  unbuffer: (args) => [...args],
  flock: (args) => {
    const parsed = posix({ shortValue: "wEc", longValue: ["timeout", "conflict-exit-code", "command"] })(args);
    const [, next, after] = parsed.operands;
    // `flock [opts] FILE -c COMMAND` puts the option after the lock file.
    const payload = optionValues(parsed, "c", "command")[0] ?? (next === "-c" || next === "--command" ? after : undefined);
    return payload === undefined ? parsed.operands.slice(1) : ["sh", "-c", payload];
  },
  watch: (args) => {
    const parsed = posix({ shortValue: "nq", longValue: ["interval", "equexit", "errexit"] })(args);
    if (parsed.shorts.has("x") || parsed.longs.has("exec")) return parsed.operands;
    return parsed.operands.length === 0 ? undefined : ["sh", "-c", parsed.operands.join(" ")];
  },
  ssh: (args) => {
    // The remote command runs on another machine, but nothing recovers from it there either.
    const parsed = posix({ shortValue: "bcDEeFIiJLlmOopQRSWw" })(args);
    return parsed.operands.length < 2 ? undefined : ["sh", "-c", parsed.operands.slice(1).join(" ")];
  },
  npx: npxPeel,
  pnpx: npxPeel,
  bunx: (args) => {
    const operands = posix({ longValue: ["package"] })(args).operands;
    return operands.length === 0 ? undefined : operands;
  },
  npm: (args) => (args[0] === "exec" || args[0] === "x" ? npxPeel(args.slice(1)) : undefined),
  pnpm: subcommandRunner(["dlx", "exec"], { longValue: ["package", "filter", "dir"] }),
  yarn: subcommandRunner(["dlx", "exec"], { shortValue: "p", longValue: ["package"] }),
  uvx: (args) => {
    const operands = posix({ shortValue: "p", longValue: UV_RUN_VALUES })(args).operands;
    return operands.length === 0 ? undefined : operands;
  },
  uv: (args, stdin) => uvRun(args[0] === "tool" ? args.slice(1) : args, stdin),
  poetry: subcommandRunner(["run"]),
  pipenv: subcommandRunner(["run"]),
  pdm: subcommandRunner(["run"]),
  hatch: subcommandRunner(["run"]),
  pipx: subcommandRunner(["run"], { longValue: ["spec", "python", "pip-args"] }),
  bundle: subcommandRunner(["exec"]),
  busybox: (args) => (args.length === 0 ? undefined : [...args]),
  toybox: (args) => (args.length === 0 ? undefined : [...args]),
  chroot: (args) => posix({ longValue: ["userspec", "groups"] })(args).operands.slice(1),
  xargs: (args, stdin) => {
    const parsed = posix({
      shortValue: "ILnPdEsa",
      shortOptionalValue: "iel",
      longValue: ["max-args", "max-lines", "max-procs", "delimiter", "arg-file", "eof", "max-chars", "process-slot-var"],
    })(args);
    const inner = parsed.operands.length === 0 ? ["echo"] : parsed.operands;
    const replaces = parsed.shorts.has("I") || parsed.shorts.has("i") || parsed.longs.has("replace");
    // Without a replace string, xargs appends what it reads to the command line.
    return stdin !== undefined && !replaces ? [...inner, ...splitFields(stdin)] : inner;
  },
};

export interface Peeled {
  argv: string[];
  /** Wrapper names peeled, outermost first. */
  wrappers: string[];
}

/** Peels wrappers off `argv` until a non-wrapper is in command position. `stdin` feeds `xargs`. */
export function peelWrappers(argv: readonly string[], stdin: string | undefined): Peeled {
  let current = [...argv];
  const wrappers: string[] = [];
  for (let guard = 0; guard < 32 && current.length > 0; guard++) {
    const name = commandName(current[0] as string);
    const peel = Object.hasOwn(PEELERS, name) ? PEELERS[name] : undefined;
    const inner = peel?.(current.slice(1), stdin);
    if (inner === undefined) break;
    wrappers.push(name);
    current = inner;
  }
  return { argv: current, wrappers };
}

/** The command lines `find` runs through `-exec`, `-execdir`, `-ok`, `-okdir` (up to `;` or `+`). */
export function findExecArgvs(args: readonly string[]): string[][] {
  const argvs: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[i] as string)) continue;
    let end = i + 1;
    while (end < args.length && args[end] !== ";" && args[end] !== "+") end++;
    argvs.push(args.slice(i + 1, end));
    i = end;
  }
  return argvs;
}
