/**
 * Rules that apply only when the command runs without the OS sandbox (`sandboxed` false or
 * absent). Inside the sandbox a program the text does not show can still only write the
 * workspace and temp and cannot read credentials, so these are left to it; outside it the text
 * is all there is, and a command whose effect the text hides asks:
 *
 * - `unknown_program`: the program is a variable or a substitution (`$R -rf ~`, `` `x` args ``,
 *   `eval "$X"`, `bash -c "$(cat f)"`, `bash "$SCRIPT"`);
 * - `code_from_stdin`: a shell or interpreter reads its program from stdin or a pipe
 *   (`… | bash`, `bash < file`, `sh -s`, `source <(…)`, `node < x.js`);
 * - `run_written_script`: a shell runs a script written earlier in this command line or this
 *   session whose content the text does not show (`bash c.sh`, `source c.sh`, `./c.sh`);
 * - `interpreter_deletes_tree` / `interpreter_runs_commands`: inline interpreter code
 *   (`python -c`, `node -e`, `perl -e`, awk, a heredoc fed to `python3 -`) that deletes trees or
 *   starts shells and programs.
 *
 * Programs that print shell setup code (`eval "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`,
 * `source <(kubectl completion bash)`) are trusted like running them directly. Code from a
 * downloader or a decoder is left to `remote_code` / `decode_exec`, so keys do not pile up.
 */
import { codeFeeds, isDecoder, isDownloader, runsDecodedInlineCode } from "./code-sources.js";
import { deletesTrees, inlinePrograms, spawnsCommands } from "./inline-code.js";
import { isInterpreter, isShell, runsStdin, shellInvocation } from "./interpreters.js";
import { UNKNOWN } from "./normalize.js";
import type { CommandRule, RuleContext, Script, SimpleCommand } from "./simple-command.js";

/** Programs whose whole purpose is printing shell setup code. */
const SETUP_TOOLS = new Set([
  "ssh-agent", "gpg-agent", "keychain", "pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv", "direnv", "brew", "starship", "zoxide",
  "fnm", "mise", "rtx", "asdf", "opam", "thefuck", "dircolors", "atuin", "mcfly", "oh-my-posh", "register-python-argcomplete", "luarocks",
  "aws-vault", "op", "saml2aws", "docker-machine", "devbox", "pixi", "conda", "mamba", "micromamba", "fzf", "nvm",
]);
/** Arguments that ask any CLI for its shell setup code (`kubectl completion bash`, `minikube docker-env`). */
const SETUP_VERB = /^(?:completions?|shell-?completion|generate-shell-completion|docker-env|podman-env|shellenv|shell-hook|hook|init|env|activate|print-dev-env)$/;
/** Commands that print data they were given (files, variables, the clipboard), never setup code of their own. */
const DATA_RELAYS = new Set([
  "cat", "head", "tail", "tac", "sed", "cut", "tr", "sort", "uniq", "grep", "egrep", "fgrep", "rg", "jq", "yq", "xargs", "read", "printf", "echo",
  "envsubst", "strings", "printenv", "pbpaste", "xclip", "xsel", "wl-paste", "git", "dd", "tee", "paste", "column", "fold", "iconv", "gpg", "sops",
  "less", "more", "zcat", "find", "ls",
]);

/** Commands whose output is a plain value that cannot spell a command (with option-only arguments: `date +%s`, `id -u`). */
const PLAIN_VALUE = new Set(["date", "pwd", "whoami", "hostname", "uname", "nproc", "id", "arch", "tty", "logname", "mktemp"]);

function printsPlainValue({ name, args }: SimpleCommand): boolean {
  return PLAIN_VALUE.has(name) && args.every((arg) => /^[-+][\w%:.-]*$/.test(arg));
}

function isUnknownText(text: string): boolean {
  return text.includes("$") || text.includes(UNKNOWN);
}

function printsSetupCode(command: SimpleCommand): boolean {
  const { name, args } = command;
  if (name === "" || isUnknownText(name) || isShell(name) || isInterpreter(name) || DATA_RELAYS.has(name) || isDownloader(command) || isDecoder(command)) return false;
  return SETUP_TOOLS.has(name) || args.some((arg) => SETUP_VERB.test(arg));
}

/** True when the code's source is judged elsewhere (download, decoding), is setup code from a trusted printer, or only plain values. */
function sourceAccountedFor(command: SimpleCommand): boolean {
  const feeds = codeFeeds(command);
  if (feeds.some((feed) => isDownloader(feed) || isDecoder(feed)) || runsDecodedInlineCode(command)) return true;
  return feeds.length > 0 && feeds.every((feed) => printsSetupCode(feed) || printsPlainValue(feed));
}

function basename(path: string): string {
  return path.replace(/\/+$/, "").split("/").pop() ?? "";
}

function runsUnknownProgram(command: SimpleCommand): boolean {
  if (command.name !== "" && isUnknownText(command.name)) return true;
  const shellPayload = isShell(command.name) ? shellInvocation(command.args).payload : undefined;
  const payload = command.name === "eval" ? command.args.join(" ") : shellPayload;
  // An unknown variable in a payload becomes the nested command's name and is caught there.
  if (payload !== undefined) return payload.includes(UNKNOWN) && !sourceAccountedFor(command);
  const file = command.runsFile;
  return file !== undefined && !file.direct && isUnknownText(basename(file.path)) && !sourceAccountedFor(command);
}

/** `--version`, `--help` (and interpreters' `-v`, `-V`, `-h`): print and exit without reading a program. Python's `-v` is verbose, a shell's `-v` too. */
function printsInfo({ name, args }: SimpleCommand): boolean {
  const info = isShell(name) ? /^--(?:version|help)$/ : /^python/.test(name) ? /^(?:-[Vh]|--version|--help)$/ : /^(?:-[vVh?]|--version|--help)$/;
  return args.some((arg) => info.test(arg));
}

function runsCodeFromStdin(command: SimpleCommand): boolean {
  if (printsInfo(command)) return false;
  const sourced = (command.name === "source" || command.name === ".") && /^(?:\/dev\/stdin|-)$/.test(command.args[0] ?? "");
  const fromStdin = runsStdin(command) || sourced;
  const fromPipe = command.runsFile !== undefined && /^\/dev\/fd\/\d+$/.test(command.runsFile.path);
  // Statically known stdin was scanned as a script (shells) or is judged as inline code
  // (interpreters); a heredoc with an unknown substitution in it is not known.
  if (fromStdin && command.stdin !== undefined && !command.stdin.includes(UNKNOWN)) return false;
  return (fromStdin || fromPipe) && !sourceAccountedFor(command);
}

function runsWrittenScript(command: SimpleCommand, _script: Script, context: RuleContext): boolean {
  const file = command.runsFile;
  if (!file || file.content !== undefined || command.scriptDownloadedBy) return false;
  const viaShell = file.direct || isShell(command.name) || command.name === "source" || command.name === ".";
  return viaShell && (file.written || context.writtenInSession(file.path));
}

function unsandboxedOnly(key: string, description: string, matches: CommandRule["matches"]): CommandRule {
  return { key, description, matches: (command, script, context) => !context.sandboxed && matches(command, script, context) };
}

export const UNSANDBOXED_RULES: readonly CommandRule[] = [
  unsandboxedOnly("unknown_program", "run a program the command text does not name (a variable or command output)", runsUnknownProgram),
  unsandboxedOnly("code_from_stdin", "run a script read from stdin or a pipe", runsCodeFromStdin),
  unsandboxedOnly("run_written_script", "run a script written in this session", runsWrittenScript),
  unsandboxedOnly("interpreter_deletes_tree", "delete directory trees from inline interpreter code", (c) => inlinePrograms(c).some(deletesTrees)),
  unsandboxedOnly("interpreter_runs_commands", "start shells or programs from inline interpreter code", (c) => inlinePrograms(c).some(spawnsCommands)),
];
