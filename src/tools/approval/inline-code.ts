/**
 * Program text a script interpreter runs that the command text shows: `python -c CODE`,
 * `node -e CODE`, awk's program, a heredoc or here-string fed to `python3 -`, and a script file
 * written with known content earlier in the same command line (`cat > x.py <<EOF …; python x.py`,
 * `./x.py` with a shebang). And what such code does, by language: delete directory trees (or
 * files in a loop), spawn shells or other programs, talk to the network, dump the environment.
 *
 * The patterns are lexical and deliberately generous in what counts as a call (a string that
 * merely mentions `shutil.rmtree` counts); they only decide whether to ask.
 */
import { commandName, splitFields } from "./argv.js";
import { interpreterInvocation, interpreterLanguage, type Language } from "./interpreters.js";
import type { SimpleCommand } from "./simple-command.js";

export interface InlineProgram {
  language: Language;
  text: string;
  /** The interpreter loops over input lines itself (`perl -n`, `perl -p`, `ruby -n`). */
  loops: boolean;
}

/** The language a `#!` line names (`#!/usr/bin/env python3` → python). */
export function shebangLanguage(content: string): Language | undefined {
  const line = content.split("\n", 1)[0] ?? "";
  if (!line.startsWith("#!")) return undefined;
  const fields = splitFields(line.slice(2));
  let name = commandName(fields[0] ?? "");
  if (name === "env") name = commandName(fields.slice(1).find((arg) => !arg.startsWith("-") && !arg.includes("=")) ?? "");
  return interpreterLanguage(name);
}

const PROGRAMS = new WeakMap<SimpleCommand, readonly InlineProgram[]>();

/** Every program text `command` runs that can be read from the command line (memoized per command). */
export function inlinePrograms(command: SimpleCommand): readonly InlineProgram[] {
  let programs = PROGRAMS.get(command);
  if (!programs) PROGRAMS.set(command, (programs = findPrograms(command)));
  return programs;
}

function findPrograms(command: SimpleCommand): InlineProgram[] {
  const file = command.runsFile;
  if (file?.direct) {
    const language = file.content === undefined ? undefined : shebangLanguage(file.content);
    return language === undefined || file.content === undefined ? [] : [{ language, text: file.content, loops: false }];
  }
  const invocation = interpreterInvocation(command.name, command.args);
  if (!invocation) return [];
  const texts = [...invocation.code];
  if (invocation.readsStdin && command.stdin !== undefined) texts.push(command.stdin);
  if (invocation.script !== undefined && file?.content !== undefined) texts.push(file.content);
  const lineLoop = /^(?:perl|ruby)/.test(command.name) && command.args.some((arg) => /^-[a-zA-Z]*[np]/.test(arg) && !arg.startsWith("--"));
  return texts.map((text) => ({ language: invocation.language, text, loops: lineLoop }));
}

type Patterns = Partial<Record<Language, RegExp>>;

/** Calls that delete a whole tree. */
const TREE_DELETE: Patterns = {
  python: /\brmtree\b|\bremovedirs\b/,
  javascript:
    /\brimraf\b|\b(?:rm|rmdir)(?:Sync)?\s*\([^;]*?\brecursive\s*:\s*(?:true|!0|1)\b|\b(?:removeSync|emptyDirSync|emptyDir|deleteSync|deleteAsync)\s*\(|\bfs(?:e|Extra|x)?\s*\.\s*remove\s*\(|\bDeno\s*\.\s*remove(?:Sync)?\s*\([^;]*?\brecursive\s*:\s*true/,
  perl: /\b(?:rmtree|remove_tree)\b/,
  ruby: /\b(?:rm_rf|rm_r|rmtree|remove_dir|remove_entry(?:_secure)?)\b/,
  php: /\bRecursiveDirectoryIterator\b[\s\S]*\b(?:unlink|rmdir)\s*\(/,
  r: /\bunlink\s*\([^;]*?\brecursive\s*=\s*(?:TRUE|T)\b/,
  julia: /\brm\s*\([^;]*?\brecursive\s*=\s*true\b/,
  powershell: /\b(?:Remove-Item|rm|del|ri|rd|rmdir|erase)\b[^;|]*\s-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?\b/i,
};
/** Any-language spellings of a tree delete (JVM libraries through jshell, groovy, kotlin scripts). */
const ANY_TREE_DELETE = /\bdeleteRecursively\b|\bFileUtils\s*\.\s*(?:deleteDirectory|forceDelete|cleanDirectory)\b|\bFiles\s*\.\s*walk\b[\s\S]*\bdelete/;
/** Calls that delete one file or directory; a tree delete when they run in a loop. */
const SINGLE_DELETE: Patterns = {
  python: /\bos\s*\.\s*(?:remove|unlink|rmdir)\b|\.unlink\s*\(|\.rmdir\s*\(/,
  javascript: /\b(?:unlink|rm|rmdir)(?:Sync)?\s*\(/,
  perl: /\bunlink\b/,
  ruby: /\b(?:File|FileUtils|Dir|Pathname)\s*\.\s*(?:delete|unlink|rm|rm_f|rmdir)\b|\.unlink\b/,
  php: /\bunlink\s*\(|['"]unlink['"]/,
  lua: /\bos\s*\.\s*remove\b/,
  r: /\b(?:unlink|file\.remove)\s*\(/,
  julia: /\brm\s*\(/,
  powershell: /\bRemove-Item\b/i,
};
const LOOP_RE = /\bfor\b|\bforeach\b|\bwhile\b|\.each\b|\bforEach\b|\bmap\b|\bglob\b|\bwalk\b|\breaddir|\blistdir\b|\biterdir\b|\bscandir\b|\bDir\s*\[|\bfind\s*\(|@\w|<\*|\bForEach-Object\b|%\s*\{/;

/** True when the code deletes a directory tree, or deletes files in a loop or over a glob. */
export function deletesTrees(program: InlineProgram): boolean {
  const { language, text } = program;
  if (TREE_DELETE[language]?.test(text) || ANY_TREE_DELETE.test(text)) return true;
  return (SINGLE_DELETE[language]?.test(text) ?? false) && (program.loops || LOOP_RE.test(text));
}

/** Calls that start a shell or another program. */
const SPAWN: Patterns = {
  python:
    /\bos\s*\.\s*(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?|forkpty)\b|\bsubprocess\b|\bpty\s*\.\s*spawn\b|\bcommands\s*\.\s*getoutput|\bcreate_subprocess_(?:exec|shell)\b|__import__\s*\(\s*['"](?:subprocess|pty)['"]|__import__\s*\(\s*['"]os['"]\s*\)\s*\.\s*(?:system|popen|exec|spawn)|\bfrom\s+os\s+import\b[^\n;]*\b(?:system|popen|exec\w*|spawn\w*)\b|\bimport\s+[\w\s,]*\bpty\b/,
  javascript: /\bchild_process\b|\b(?:execSync|execFileSync|spawnSync|execFile|spawn|fork)\s*\(|\bBun\s*\.\s*(?:spawn|spawnSync|\$)|\bDeno\s*\.\s*(?:run|Command)\b|\bprocess\s*\.\s*binding\s*\(/,
  perl: /\b(?:system|exec)\b\s*[("'q$@{]|`|\bqx\s*[^\w\s]|\bopen\s*\(?[^;]*?["'][^"';]*\|[^"';]*["']|\bfork\b/,
  ruby: /\b(?:system|exec|spawn)\s*(?:\(|\s+["'%])|`|%x\s*[^\w\s]|\b(?:IO|Kernel|Process|PTY|Open3)\s*\.\s*(?:popen\w*|system|exec|spawn|capture\w*|pipeline\w*)|\bOpen3\b/,
  php: /\b(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)\s*\(|`/,
  lua: /\bos\s*\.\s*execute\b|\bio\s*\.\s*popen\b/,
  applescript: /\bdo\s+shell\s+script\b/i,
  awk: /\bsystem\s*\(|\|\s*getline\b|\|&|\bprintf?\b[^;}]*\|\s*"/,
  r: /\bsystem2?\s*\(|\bshell\s*\(|\bpipe\s*\(|\bprocessx::/,
  julia: /`[^`]*`|\bpipeline\s*\(/,
  powershell: /\b(?:Invoke-Expression|iex|Start-Process|saps|Invoke-Command|icm)\b|&\s*[("'$]|\bcmd(?:\.exe)?\s+\/c\b|\b(?:bash|sh)\s+-c\b/i,
};

/** awk and PHP string literals hide `|` and backticks that are only text. */
function withoutStrings(program: InlineProgram): string {
  return program.language === "awk" ? program.text.replace(/"(?:[^"\\]|\\.)*"/g, '""') : program.text;
}

/** True when the code starts a shell or another program (`os.system`, `subprocess`, `child_process`, backticks, awk `system()`). */
export function spawnsCommands(program: InlineProgram): boolean {
  return SPAWN[program.language]?.test(withoutStrings(program)) ?? false;
}

/** Libraries and calls that open network connections. */
const NETWORK: Patterns = {
  python: /\b(?:requests|urllib\d?|http\.client|httplib|httpx|aiohttp|socket|smtplib|ftplib|paramiko|pycurl|websockets?|telnetlib)\b/,
  javascript:
    /\bfetch\s*\(|\b(?:https?|net|tls|dgram)\s*\.\s*(?:request|get|connect|createConnection)\b|['"](?:node:)?(?:https?|net|tls|dgram|axios|got|node-fetch|undici)['"]|\baxios\b|\bXMLHttpRequest\b|\bWebSocket\b/,
  perl: /\b(?:LWP|HTTP::Tiny|IO::Socket|Net::\w+|Mojo::UserAgent|Socket)\b|\bsocket\s*\(/,
  ruby: /\bNet::(?:HTTP|FTP|SMTP)\b|\bopen-uri\b|\bURI\s*\.\s*open\b|\b(?:TCPSocket|UDPSocket|Socket)\b|\b(?:RestClient|HTTParty|Faraday|Excon|HTTP)\s*\./,
  php: /\bcurl_\w+\s*\(|\bfile_get_contents\s*\(\s*['"]https?:|\bfsockopen\b|\bstream_socket_client\b|\bmail\s*\(|\bstream_context_create\b/,
  lua: /\bsocket\b|\bhttp\s*\.\s*request\b/,
  r: /\b(?:httr2?|RCurl)\b|\bcurl::|\bdownload\.file\b|\burl\s*\(|\bsocketConnection\b|\bPOST\s*\(/,
  julia: /\bHTTP\s*\.|\bDownloads\b|\bSockets\b/,
  awk: /\/inet\d?\/(?:tcp|udp)\//,
  powershell: /\b(?:Invoke-WebRequest|Invoke-RestMethod|iwr|irm|Send-MailMessage)\b|\bNet\.(?:WebClient|Sockets)\b/i,
  applescript: /\bdo\s+shell\s+script\b[^\n]*\b(?:curl|wget|nc|ssh|scp)\b/i,
};

/** True when the code can send data over the network. */
export function usesNetwork(program: InlineProgram): boolean {
  return NETWORK[program.language]?.test(program.text) ?? false;
}

/** Reads of the whole environment (not one variable). */
const ENV_DUMP: Patterns = {
  python: /\bos\s*\.\s*environ\b(?!\s*(?:\[|\.get\b|\.setdefault\b|\.pop\b))/,
  javascript: /\bprocess\s*\.\s*env\b(?!\s*(?:\.|\[|\?\.))|\bDeno\s*\.\s*env\s*\.\s*toObject\b/,
  perl: /%ENV\b/,
  ruby: /\bENV\b(?!\s*(?:\[|\.fetch\b))/,
  php: /\bgetenv\s*\(\s*\)|\$_ENV\b|\$_SERVER\b/,
  awk: /\bENVIRON\b(?!\s*\[)/,
  r: /\bSys\.getenv\s*\(\s*\)/,
  powershell: /\b(?:Get-ChildItem|gci|dir|ls)\s+env:/i,
};

/** True when the code reads the whole environment (`os.environ`, `process.env`, `%ENV`). */
export function dumpsEnvironment(program: InlineProgram): boolean {
  return ENV_DUMP[program.language]?.test(program.text) ?? false;
}
