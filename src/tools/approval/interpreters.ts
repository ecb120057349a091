/**
 * What shells and script interpreters do with their arguments: which string is code (`-c`,
 * `-e`), and whether the script comes from stdin (so what is piped in gets executed).
 */
import { optionValues, parseArgs, type ArgSpec } from "./argv.js";
import type { SimpleCommand } from "./simple-command.js";

const SHELLS = new Set(["sh", "bash", "zsh", "ksh", "dash", "ash", "mksh", "yash", "fish", "csh", "tcsh", "rbash"]);

export interface ShellInvocation {
  /** The `-c` command string, when given. */
  payload?: string;
  /** The script file, when the shell runs one. */
  script?: string;
  /** `$0`, `$1`, … for the payload, the script, or stdin. */
  positional: string[];
  /** True when the shell reads its script from stdin (no script file, `-s`, or `-`). */
  readsStdin: boolean;
}

export function isShell(name: string): boolean {
  return SHELLS.has(name);
}

/** How a shell treats its arguments (`bash -lc 'cmd' name arg`, `sh -s`, `bash script.sh`). */
export function shellInvocation(args: readonly string[]): ShellInvocation {
  let hasCommand = false;
  let stdinFlag = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "-") {
      stdinFlag = true;
      i++;
      break;
    }
    if (arg === "--rcfile" || arg === "--init-file") {
      i++;
      continue;
    }
    if (arg.startsWith("--")) continue;
    if (!/^[-+][A-Za-z]+$/.test(arg)) break;
    const letters = arg.slice(1);
    if (arg.startsWith("-") && letters.includes("c")) hasCommand = true;
    if (arg.startsWith("-") && letters.includes("s")) stdinFlag = true;
    if (/[oO]$/.test(letters)) i++;
  }
  const operands = args.slice(i);
  if (hasCommand) return { payload: operands[0] ?? "", positional: operands.slice(1), readsStdin: false };
  if (stdinFlag || operands.length === 0 || operands[0] === "/dev/stdin") return { positional: ["sh", ...operands], readsStdin: true };
  return { script: operands[0], positional: operands, readsStdin: false };
}

interface InterpreterSpec {
  pattern: RegExp;
  args: ArgSpec;
  /** Options whose value is program text. */
  code: string[];
  /** Options that run something other than stdin (a module, a file). */
  other: string[];
}

const INTERPRETERS: InterpreterSpec[] = [
  { pattern: /^(?:python[0-9.]*|pypy[0-9.]*)$/, args: { shortValue: "cmWX", stopAtOperand: true }, code: ["c"], other: ["m"] },
  {
    pattern: /^(?:node|nodejs|bun)$/,
    args: { shortValue: "epr", longValue: ["eval", "print", "require", "import", "loader"], stopAtOperand: true },
    code: ["e", "p", "eval", "print"],
    other: [],
  },
  { pattern: /^perl[0-9.]*$/, args: { shortValue: "eEIMm", stopAtOperand: true }, code: ["e", "E"], other: [] },
  { pattern: /^ruby[0-9.]*$/, args: { shortValue: "eIrC", stopAtOperand: true }, code: ["e"], other: [] },
  { pattern: /^php[0-9.]*$/, args: { shortValue: "rdcf", stopAtOperand: true }, code: ["r"], other: ["f"] },
  { pattern: /^(?:lua[0-9.]*|luajit)$/, args: { shortValue: "el", stopAtOperand: true }, code: ["e"], other: [] },
  { pattern: /^osascript$/, args: { shortValue: "el", stopAtOperand: true }, code: ["e"], other: [] },
];

export interface InterpreterInvocation {
  /** Program text given on the command line (`python -c CODE`, `node -e CODE`). */
  code: string[];
  /** True when the program is read from stdin. */
  readsStdin: boolean;
  /** The script file run, when there is one. */
  script?: string;
}

/** How a script interpreter treats its arguments; undefined when `name` is not one. */
export function interpreterInvocation(name: string, args: readonly string[]): InterpreterInvocation | undefined {
  const spec = INTERPRETERS.find((candidate) => candidate.pattern.test(name));
  if (!spec) return undefined;
  const parsed = parseArgs(args, spec.args);
  const code = optionValues(parsed, ...spec.code);
  const other = optionValues(parsed, ...spec.other);
  const script = parsed.operands[0];
  const fromOperand = code.length === 0 && other.length === 0;
  const readsStdin = fromOperand && (script === undefined || script === "-" || script === "/dev/stdin");
  return fromOperand && !readsStdin ? { code, readsStdin, script } : { code, readsStdin };
}

/** True for commands that execute code given to them: shells, interpreters, `eval`, `source`, `.`. */
export function executesCode(command: SimpleCommand): boolean {
  const { name } = command;
  return isShell(name) || name === "eval" || name === "source" || name === "." || interpreterInvocation(name, []) !== undefined;
}

/** True when the command runs whatever arrives on stdin as a program. */
export function runsStdin(command: SimpleCommand): boolean {
  if (isShell(command.name)) return shellInvocation(command.args).readsStdin;
  return interpreterInvocation(command.name, command.args)?.readsStdin ?? false;
}
