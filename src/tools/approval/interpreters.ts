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

/** The language an interpreter's program text is written in; `inline-code.ts` keys its patterns on it. */
export type Language = "python" | "javascript" | "perl" | "ruby" | "php" | "lua" | "applescript" | "r" | "julia" | "awk" | "powershell";

interface InterpreterSpec {
  pattern: RegExp;
  language: Language;
  args: ArgSpec;
  /** Options whose value is program text. */
  code: string[];
  /** Options that run something other than stdin (a module, a file). */
  other: string[];
}

const INTERPRETERS: InterpreterSpec[] = [
  { pattern: /^(?:python[0-9.]*|pypy[0-9.]*)$/, language: "python", args: { shortValue: "cmWX", stopAtOperand: true }, code: ["c"], other: ["m"] },
  {
    pattern: /^(?:node|nodejs|bun)$/,
    language: "javascript",
    args: { shortValue: "epr", longValue: ["eval", "print", "require", "import", "loader"], stopAtOperand: true },
    code: ["e", "p", "eval", "print"],
    other: [],
  },
  { pattern: /^perl[0-9.]*$/, language: "perl", args: { shortValue: "eEIMm", stopAtOperand: true }, code: ["e", "E"], other: [] },
  { pattern: /^ruby[0-9.]*$/, language: "ruby", args: { shortValue: "eIrC", stopAtOperand: true }, code: ["e"], other: [] },
  { pattern: /^php[0-9.]*$/, language: "php", args: { shortValue: "rdcf", stopAtOperand: true }, code: ["r"], other: ["f"] },
  { pattern: /^(?:lua[0-9.]*|luajit)$/, language: "lua", args: { shortValue: "el", stopAtOperand: true }, code: ["e"], other: [] },
  { pattern: /^osascript$/, language: "applescript", args: { shortValue: "el", stopAtOperand: true }, code: ["e"], other: [] },
  { pattern: /^rscript$/, language: "r", args: { shortValue: "e", stopAtOperand: true }, code: ["e"], other: [] },
  {
    pattern: /^julia$/,
    language: "julia",
    args: { shortValue: "eEL", longValue: ["eval", "print", "load"], stopAtOperand: true },
    code: ["e", "E", "eval", "print"],
    other: [],
  },
];

export interface InterpreterInvocation {
  language: Language;
  /** Program text given on the command line (`python -c CODE`, `node -e CODE`, awk's program). */
  code: string[];
  /** True when the program is read from stdin. */
  readsStdin: boolean;
  /** The script file run, when there is one. */
  script?: string;
}

const AWK_RE = /^(?:awk|gawk|mawk|nawk)$/;
const POWERSHELL_RE = /^(?:pwsh|powershell)(?:\.exe)?$/;

/** How a script interpreter treats its arguments; undefined when `name` is not one. */
export function interpreterInvocation(name: string, args: readonly string[]): InterpreterInvocation | undefined {
  if (AWK_RE.test(name)) return awkInvocation(args);
  if (POWERSHELL_RE.test(name)) return powershellInvocation(args);
  if (name === "deno") return denoInvocation(args);
  const spec = INTERPRETERS.find((candidate) => candidate.pattern.test(name));
  if (!spec) return undefined;
  const parsed = parseArgs(args, spec.args);
  const code = optionValues(parsed, ...spec.code);
  const other = optionValues(parsed, ...spec.other);
  const script = parsed.operands[0];
  const fromOperand = code.length === 0 && other.length === 0;
  const readsStdin = fromOperand && (script === undefined || script === "-" || script === "/dev/stdin");
  const language = spec.language;
  return fromOperand && !readsStdin ? { language, code, readsStdin, script } : { language, code, readsStdin };
}

/** awk: the first operand is the program unless `-f FILE` names one; it never runs stdin as a program. */
function awkInvocation(args: readonly string[]): InterpreterInvocation {
  const parsed = parseArgs(args, { shortValue: "fvFW", longValue: ["file", "assign", "field-separator", "source", "include", "load"], stopAtOperand: true });
  const files = optionValues(parsed, "f", "file");
  const code = [...optionValues(parsed, "source"), ...(files.length === 0 && parsed.operands[0] !== undefined ? [parsed.operands[0]] : [])];
  return files[0] === undefined ? { language: "awk", code, readsStdin: false } : { language: "awk", code, readsStdin: false, script: files[0] };
}

/** pwsh / powershell: `-c` / `-Command` (any case) takes the rest of the line as the program. */
function powershellInvocation(args: readonly string[]): InterpreterInvocation {
  const at = args.findIndex((arg) => /^-(?:c|command)$/i.test(arg));
  if (at !== -1) return { language: "powershell", code: [args.slice(at + 1).join(" ")], readsStdin: false };
  const file = args.findIndex((arg) => /^-(?:f|file)$/i.test(arg));
  const script = file === -1 ? args.find((arg) => !arg.startsWith("-")) : args[file + 1];
  return script === undefined || script === "-" ? { language: "powershell", code: [], readsStdin: true } : { language: "powershell", code: [], readsStdin: false, script };
}

/** deno: `deno eval CODE` runs inline code, `deno run [opts] FILE` a script; other subcommands run nothing. */
function denoInvocation(args: readonly string[]): InterpreterInvocation | undefined {
  const parsed = parseArgs(args, { stopAtOperand: true });
  const [sub, ...rest] = parsed.operands;
  if (sub === "eval") {
    const program = parseArgs(rest, { stopAtOperand: true }).operands[0];
    return { language: "javascript", code: program === undefined ? [] : [program], readsStdin: false };
  }
  if (sub !== "run") return undefined;
  const script = parseArgs(rest, { stopAtOperand: true }).operands[0];
  return script === undefined || script === "-" ? { language: "javascript", code: [], readsStdin: true } : { language: "javascript", code: [], readsStdin: false, script };
}

/** The language of a script interpreter's programs (`python3` → python); undefined for anything else. */
export function interpreterLanguage(name: string): Language | undefined {
  if (AWK_RE.test(name)) return "awk";
  if (POWERSHELL_RE.test(name)) return "powershell";
  if (name === "deno") return "javascript";
  return INTERPRETERS.find((spec) => spec.pattern.test(name))?.language;
}

/** True for a script interpreter's command name (`python3`, `node`, `perl`, `awk`, `deno`, …). */
export function isInterpreter(name: string): boolean {
  return interpreterLanguage(name) !== undefined;
}

/** True for commands that execute code given to them: shells, interpreters, `eval`, `source`, `.`. */
export function executesCode(command: SimpleCommand): boolean {
  const { name } = command;
  return isShell(name) || name === "eval" || name === "source" || name === "." || isInterpreter(name);
}

/** True when the command runs whatever arrives on stdin as a program. */
export function runsStdin(command: SimpleCommand): boolean {
  if (isShell(command.name)) return shellInvocation(command.args).readsStdin;
  return interpreterInvocation(command.name, command.args)?.readsStdin ?? false;
}
