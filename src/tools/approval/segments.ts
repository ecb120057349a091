/**
 * The scanner: command text in, every simple command that would run out. It normalizes, lexes
 * and groups the text, resolves words, peels wrappers, and follows everything that executes
 * other text — `$(…)`, backticks and `<(…)`; `sh -c` / `bash -c` / `zsh -c` payloads (with
 * their `$0`, `$1…`); `eval`; heredocs, here-strings and statically known pipes fed to a shell;
 * `xargs`; `find -exec`; scripts written earlier in the same command line (`echo … > x.sh;
 * sh x.sh`); shell strings inside inline interpreter code (`os.system("…")`). Nesting deeper
 * than `MAX_DEPTH`, or re-scanning more than a few times the input's length, sets `truncated`
 * so the caller can fail closed. Pure; never throws on any input.
 */
import { commandName } from "./argv.js";
import { embeddedShellCommands } from "./code-sources.js";
import { groupTokens, type RawCommand, type RawPipeline } from "./grouping.js";
import { shebangLanguage } from "./inline-code.js";
import { isInterpreter, isShell, shellInvocation } from "./interpreters.js";
import { lex, lexHeredocBody } from "./lexer.js";
import { normalizeCommand } from "./normalize.js";
import { isAssignmentWord, resolveWord, type ResolveContext } from "./resolve.js";
import type { Redirect, Script, SimpleCommand } from "./simple-command.js";
import { staticStdout } from "./static-output.js";
import { findExecArgvs, peelWrappers } from "./wrappers.js";
import { fileKey, recordWrittenFiles, scriptRunBy, type WrittenFiles } from "./written-files.js";

/** How many levels of nested scripts are followed before giving up. */
const MAX_DEPTH = 8;
/**
 * Longest variable value or substitution output the scanner keeps. Longer ones
 * are treated as unknown, so self-doubling assignments cannot blow up memory; a rule then sees
 * `$X` or an unknown word instead (recursive deletes still ask).
 */
const MAX_VALUE = 512;

function setVar(ctx: ScanContext, name: string, value: string): void {
  if (value.length <= MAX_VALUE) ctx.vars.set(name, value);
  else ctx.vars.delete(name);
}

interface ScanContext {
  depth: number;
  positional: readonly string[];
  /** Variables assigned so far; a nested scan gets a copy. */
  vars: Map<string, string>;
  /** Files this command line writes (`echo … > x.sh`, `curl -o x.sh`), shared by all levels. */
  files: WrittenFiles;
  /** Characters and commands left to scan, shared by all levels; re-scanned payloads count again. */
  budget: { chars: number; commands: number };
}

/** Every simple command `source` would run, nested ones included, in source order. */
export function scanCommand(source: string): Script {
  const budget = { chars: 2 * source.length + 50_000, commands: 10_000 };
  return scanScript(source, { depth: 0, positional: [], vars: new Map(), files: { written: new Set(), content: new Map(), downloadedBy: new Map() }, budget });
}

function scanScript(source: string, ctx: ScanContext): Script {
  const script: Script = { commands: [], truncated: false };
  if (ctx.depth > MAX_DEPTH || source.length > ctx.budget.chars || ctx.budget.commands <= 0) {
    script.truncated = true;
    return script;
  }
  ctx.budget.chars -= source.length;
  const pipelines = groupTokens(lex(normalizeCommand(source)));
  let last: SimpleCommand | undefined;
  for (const pipeline of pipelines) {
    const members: SimpleCommand[] = [];
    for (const raw of pipeline.commands) {
      const command = scanRawCommand(raw, pipeline, members, ctx, script);
      if (command) members.push(command);
    }
    last = members[members.length - 1];
  }
  if (pipelines.length === 1 && last) script.output = staticStdout(last);
  return script;
}

function nested(ctx: ScanContext, positional: readonly string[] = ctx.positional): ScanContext {
  return { depth: ctx.depth + 1, positional, vars: new Map(ctx.vars), files: ctx.files, budget: ctx.budget };
}

function include(into: Script, inner: Script): void {
  into.commands.push(...inner.commands);
  if (inner.truncated) into.truncated = true;
}

/** Resolves, peels and records one raw command (and what it runs); returns its pipeline member. */
function scanRawCommand(raw: RawCommand, pipeline: RawPipeline, members: SimpleCommand[], ctx: ScanContext, script: Script): SimpleCommand | undefined {
  const substituted: SimpleCommand[] = [];
  const resolver: ResolveContext = {
    vars: ctx.vars,
    positional: ctx.positional,
    substitute: (source) => {
      const inner = scanScript(source, nested(ctx));
      include(script, inner);
      substituted.push(...inner.commands);
      return inner.output !== undefined && inner.output.length <= MAX_VALUE ? inner.output : undefined;
    },
  };

  let first = 0;
  const assignments: [string, string][] = [];
  for (; first < raw.words.length && isAssignmentWord(raw.words[first]!); first++) {
    const text = resolveWord(raw.words[first]!, resolver, false)[0] ?? "";
    const eq = text.indexOf("=");
    assignments.push([text.slice(0, eq), text.slice(eq + 1)]);
  }
  const fields = raw.words.slice(first).flatMap((word) => resolveWord(word, resolver));
  if (fields.length === 0 || /^(?:export|declare|typeset|local|readonly)$/.test(fields[0] ?? "")) {
    for (const [name, value] of assignments) setVar(ctx, name, value);
    for (const field of fields.slice(1)) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(field);
      if (match) setVar(ctx, match[1]!, match[2]!);
    }
  }

  const redirects: Redirect[] = [];
  let stdin: string | undefined;
  for (const redirect of raw.redirects) {
    if (redirect.heredoc) {
      const { body, quoted } = redirect.heredoc;
      stdin = quoted ? body : resolveWord(lexHeredocBody(body), resolver, false)[0] ?? "";
      continue;
    }
    const target = redirect.target ? resolveWord(redirect.target, resolver, false)[0] ?? "" : "";
    if (redirect.op === "<<<") stdin = `${target}\n`;
    redirects.push(redirect.fd === undefined ? { op: redirect.op, target } : { op: redirect.op, fd: redirect.fd, target });
  }
  const previous = members[members.length - 1];
  if (stdin === undefined && previous) stdin = staticStdout(previous);
  if (fields.length === 0 && redirects.length === 0) return undefined;

  const base = { redirects, pipeline: members, pipelineIndex: members.length, substituted, background: pipeline.background, inFunction: raw.inFunction };
  return recordCommand(fields, stdin, base, ctx, script);
}

type CommandBase = Pick<SimpleCommand, "redirects" | "pipeline" | "pipelineIndex" | "substituted" | "background" | "inFunction">;

/** Peels wrappers off `argv`, records the command, then follows whatever it executes. */
function recordCommand(argv: readonly string[], stdin: string | undefined, base: CommandBase, ctx: ScanContext, script: Script): SimpleCommand {
  const peeled = peelWrappers(argv, stdin);
  const [head, ...args] = peeled.argv;
  const command: SimpleCommand = { ...base, name: head === undefined ? "" : unglobName(commandName(head)), args, wrappers: peeled.wrappers };
  if (stdin !== undefined) command.stdin = stdin;
  if (command.inFunction === undefined) delete command.inFunction;
  script.commands.push(command);
  if (--ctx.budget.commands === 0) script.truncated = true;

  // What the script file held before this command ran; its own output redirections come after.
  const scriptFile = scriptRunBy(command, head);
  const written = scriptFile === undefined ? undefined : ctx.files.content.get(fileKey(scriptFile));
  if (scriptFile !== undefined) {
    const key = fileKey(scriptFile);
    const downloader = ctx.files.downloadedBy.get(key);
    if (downloader) command.scriptDownloadedBy = downloader;
    command.runsFile = { path: scriptFile, direct: head?.includes("/") ?? false, written: ctx.files.written.has(key) };
    if (written !== undefined) command.runsFile.content = written;
  }
  recordWrittenFiles(command, ctx.files);

  if (isShell(command.name)) {
    const shell = shellInvocation(command.args);
    const body = shell.payload ?? (shell.readsStdin ? stdin : written);
    if (body !== undefined) include(script, scanScript(body, nested(ctx, shell.positional)));
  } else if (written !== undefined && !isInterpreter(command.name) && shebangLanguage(written) === undefined) {
    include(script, scanScript(written, nested(ctx, [scriptFile ?? "", ...(head?.includes("/") ? args : args.slice(1))])));
  } else if (command.name === "eval") {
    include(script, scanScript(command.args.join(" "), nested(ctx)));
  } else if (command.name === "find") {
    if (ctx.depth >= MAX_DEPTH) script.truncated = true;
    else {
      const inner = nested(ctx);
      const execBase: CommandBase = { redirects: [], pipeline: [], pipelineIndex: 0, substituted: [], background: base.background, inFunction: base.inFunction };
      for (const execArgv of findExecArgvs(command.args)) recordCommand(execArgv, undefined, execBase, inner, script);
    }
  }
  for (const source of embeddedShellCommands(command)) include(script, scanScript(source, nested(ctx, [])));
  return command;
}

/** Names a glob in command position could stand for (`/bin/r?` is `rm`). */
const GLOB_TARGETS = ["rm", "dd", "mkfs", "shred", "wipefs", "kill", "shutdown", "reboot", "halt", "poweroff", "chmod", "chown", "sudo", "sh", "bash", "eval"];

function unglobName(name: string): string {
  // Longer patterns cannot match the short names above; skipping them bounds the regex work.
  const collapsed = name.replace(/\*+/g, "*");
  if (!/[*?[]/.test(collapsed) || collapsed.length > 32) return name;
  const source = collapsed.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".").replace(/\[!/g, "[^");
  try {
    const pattern = new RegExp(`^${source}$`);
    return GLOB_TARGETS.find((candidate) => pattern.test(candidate)) ?? name;
  } catch {
    return name;
  }
}
