/**
 * Where the code a shell or interpreter runs comes from: a pipe (`curl … | sh`), a process
 * substitution (`bash <(curl …)`), a command substitution (`sh -c "$(curl …)"`,
 * `eval "$(… | base64 -d)"`), or an inline program that decodes and executes
 * (`python -c "exec(b64decode(…))"`).
 */
import { parseArgs } from "./argv.js";
import { gitShellCommands } from "./git.js";
import { inlinePrograms } from "./inline-code.js";
import { executesCode, runsStdin } from "./interpreters.js";
import { upstreamOf, type SimpleCommand } from "./simple-command.js";

const DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lwp-request", "lynx", "links"]);

/** Commands whose output becomes code that `command` executes (or that wrote the script it runs). */
export function codeFeeds(command: SimpleCommand): SimpleCommand[] {
  const feeds: SimpleCommand[] = [];
  const stdinScript = runsStdin(command) || ((command.name === "source" || command.name === ".") && /^(?:\/dev\/stdin|-)$/.test(command.args[0] ?? ""));
  if (stdinScript) feeds.push(...upstreamOf(command));
  if (executesCode(command)) feeds.push(...command.substituted);
  if (command.scriptDownloadedBy) feeds.push(command.scriptDownloadedBy);
  return feeds;
}

export function isDownloader(command: SimpleCommand): boolean {
  return DOWNLOADERS.has(command.name);
}

/** True for a command that decodes, decompresses or unscrambles its input. */
export function isDecoder(command: SimpleCommand): boolean {
  const parsed = parseArgs(command.args);
  const decodeFlag = parsed.shorts.has("d") || parsed.longs.has("decode") || parsed.longs.has("decompress");
  switch (command.name) {
    case "base64":
    case "base32":
    case "basenc":
      return decodeFlag || parsed.shorts.has("D");
    case "xxd":
      return parsed.shorts.has("r") || parsed.longs.has("revert");
    case "openssl":
      return parsed.shorts.has("d") || parsed.shorts.has("a") || command.args[0] === "base64";
    case "gzip":
    case "bzip2":
    case "xz":
    case "zstd":
    case "lz4":
      return decodeFlag;
    case "uudecode":
    case "gunzip":
    case "zcat":
    case "bunzip2":
    case "bzcat":
    case "unxz":
    case "xzcat":
    case "unzstd":
    case "rev":
    case "tr":
      return true;
    default:
      return false;
  }
}

const EXEC_CALL_RE = /\b(?:exec|eval|system|Function|spawn|popen|compile|execSync|run)\s*\(|\beval\s+/;
const DECODE_RE = /b64decode|base64|decodebytes|fromhex|unhexlify|decompress|Buffer\.from|atob\s*\(|decode_base64|\bunpack\s*\(|rot.?13|\.decode\s*\(/i;

/** True when an interpreter's inline program decodes something and executes it. */
export function runsDecodedInlineCode(command: SimpleCommand): boolean {
  return inlinePrograms(command).some(({ text }) => EXEC_CALL_RE.test(text) && DECODE_RE.test(text));
}

/** Calls that hand a string to a shell: `os.system("…")`, `subprocess.run("…", shell=True)`, `execSync('…')`, `system(q{…})`. */
const SHELL_CALL_RE =
  /\b(?:system|popen|Popen|execSync|exec|spawnSync|check_call|check_output|call|run|getoutput|getstatusoutput)\s*\(\s*[frb]?(?:(["'`])((?:\\.|(?!\1)[^\\])*)\1|q[qx]?\{([^}]*)\})/g;
/** Perl/Ruby backticks and `%x{…}` / `qx{…}`. */
const BACKTICK_RE = /`([^`]*)`|(?:%x|qx)\{([^}]*)\}/g;

/**
 * Shell command strings embedded in what `command` runs: string literals handed to a shell by
 * an interpreter's inline program (see `inline-code.ts`), and shell text in git settings
 * (`git -c alias.x='!…'`, `git config core.pager …`).
 */
export function embeddedShellCommands(command: SimpleCommand): string[] {
  const found = gitShellCommands(command);
  for (const { language, text } of inlinePrograms(command)) {
    for (const match of text.matchAll(SHELL_CALL_RE)) found.push(match[2] ?? match[3] ?? "");
    if (language !== "javascript" && language !== "powershell") {
      for (const match of text.matchAll(BACKTICK_RE)) found.push(match[1] ?? match[2] ?? "");
    }
  }
  return found.filter((source) => source.trim().length > 0);
}
