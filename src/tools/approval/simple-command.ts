/**
 * The parsed shape the rules match against: one simple command (argv plus redirections) after
 * quotes were removed, known expansions applied and wrappers (`sudo`, `env`, `timeout`, …)
 * peeled off, with its place in a pipeline. Every command that would run — nested ones from
 * `sh -c`, `eval`, `$(…)`, heredocs fed to a shell, `xargs` and `find -exec` included — is one
 * `SimpleCommand` in a `Script`.
 */

export interface Redirect {
  /** The operator as written (`>`, `>>`, `&>`, `<`, `<<<`, `>&`, …). */
  op: string;
  fd?: number;
  /** The resolved target word (for here-strings: the string). */
  target: string;
}

export interface SimpleCommand {
  /** Lower-cased basename of argv[0] (`/usr/bin/RM` → `rm`); "" for a bare redirection. */
  name: string;
  /** argv[1…], resolved: quotes removed, known variables and static substitutions applied. */
  args: string[];
  redirects: Redirect[];
  /** Wrappers peeled to reach this command, outermost first (`["sudo", "env"]`). */
  wrappers: string[];
  /**
   * All members of this command's pipeline (shared by them, so long pipelines stay linear) and
   * this command's place in it; see `upstreamOf`.
   */
  pipeline: readonly SimpleCommand[];
  pipelineIndex: number;
  /** Stdin when statically known: a heredoc, a here-string, or an `echo … | base64 -d` chain. */
  stdin?: string;
  /** Commands whose output is spliced into this command's words (`$(…)`, backticks, `<(…)`). */
  substituted: SimpleCommand[];
  /** The downloader that wrote the script file this command runs (`curl -o x.sh …; sh x.sh`). */
  scriptDownloadedBy?: SimpleCommand;
  /** The script file this command runs, when it runs one (`sh x.sh`, `source x`, `./x.sh`, `python x.py`). */
  runsFile?: ScriptFile;
  /** Name of the shell function whose body holds this command. */
  inFunction?: string;
  /** True when the pipeline runs in the background (`&`). */
  background: boolean;
}

export interface ScriptFile {
  /** The path as resolved from the command text. */
  path: string;
  /** True when the file itself is the program (`./x.sh`, `/tmp/run`), not an argument of a shell or interpreter. */
  direct: boolean;
  /** True when an earlier command of the same command text wrote the file (`cp a x.sh; sh x.sh`). */
  written: boolean;
  /** The file's content when that write was statically known (then the scanner also scanned it). */
  content?: string;
}

/** Earlier members of the command's pipeline; their output reaches its stdin. */
export function upstreamOf(command: SimpleCommand): readonly SimpleCommand[] {
  return command.pipeline.slice(0, command.pipelineIndex);
}

/** Everything that would run for one command text. */
export interface Script {
  /** Every simple command, nested ones included, in source order. */
  commands: SimpleCommand[];
  /** Static stdout when the text is one pipeline whose output is known (for `$(echo …)`). */
  output?: string;
  /** True when nesting went deeper than the scanner follows; the caller must fail closed. */
  truncated: boolean;
}

/** What a rule may know beyond the command text; built by `detectDangerousCommand` from its options. */
export interface RuleContext {
  /** True when the command runs inside the OS sandbox (writes confined to workspace and temp, credentials unreadable). */
  readonly sandboxed: boolean;
  /** True when the agent wrote the file at `path` (as the command spells it) earlier in this session. */
  writtenInSession(path: string): boolean;
}

/**
 * One detection rule. `matches` is pure and must not throw; it sees one command at a time,
 * plus the whole script for rules that look across commands (a fork bomb's function body, a
 * credential read in one command and sent in another), and the rule context.
 */
export interface CommandRule {
  /** Stable snake_case key; "allow for session" and `command_allowlist` remember it. */
  readonly key: string;
  /** Short human description shown in the approval request ("recursive delete"). */
  readonly description: string;
  matches(command: SimpleCommand, script: Script, context: RuleContext): boolean;
}
