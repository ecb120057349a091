/**
 * Dangerous-command detection for the terminal tool. Pure: no I/O, no child processes, no
 * environment reads; the same text and options always give the same verdict.
 *
 * How a command is checked:
 * 1. `segments.ts` normalizes the text (`normalize.ts`: ANSI, NUL, NFKC, line continuations,
 *    `$IFS`), lexes it like bash (`lexer.ts`: quotes and backslashes removed, so `r\m`, `r''m`,
 *    `"r"m` are `rm`), and produces every simple command that would run — payloads of `sh -c`,
 *    `eval`, `$(…)`, heredocs fed to a shell, `xargs`, `find -exec` included — with wrappers
 *    such as `sudo`, `env`, `timeout` peeled off (`wrappers.ts`).
 * 2. Rules match parsed commands, never raw text, so a rule only fires in command position:
 *    `echo rm -rf /` and `git commit -m "rm -rf /"` are not `rm`.
 * 3. The first hardline rule (in table order) that matches any command wins; hardline commands
 *    are never run. Otherwise every dangerous rule that matches contributes its key, in table
 *    order, to one verdict: `rm -rf x` is `rm_recursive`; `sudo rm -rf x` is
 *    `rm_recursive+sudo`. A combined key is its own pattern, so allowing `rm_recursive` for the
 *    session does not also allow the same command under `sudo`.
 * 4. Nesting deeper than the scanner follows is reported as dangerous (`too_complex`): fail closed.
 * 5. `options.sandboxed` says whether the command runs inside the OS sandbox (DESIGN §3a). Rules
 *    in `unsandboxed-rules.ts` — programs and scripts the text does not show, inline interpreter
 *    code that deletes trees or spawns shells — apply only when it is false or absent. Every other
 *    rule applies in both modes: most cover what the sandbox does not stop (git history inside
 *    the workspace, containers, clusters, cloud, databases, crontab, exfiltration over the
 *    network); the rest (writes to ~/.ssh, /etc, …) would fail inside it and still ask. So a
 *    sandboxed verdict is always the strict one with the unsandboxed keys removed.
 *
 * Adding a rule: write a `matches(command, script, context)` predicate over `SimpleCommand`
 * (use `command.name` and `command.args`, and helpers such as `writeTargets`, `parseArgs`,
 * `gitCall`, `inlinePrograms`), add `{ key, description, matches }` to `HARDLINE_RULES` (never
 * runs), `DANGEROUS_RULES` or one of the topic tables it splices in (asks) — the key is stable
 * snake_case and is what users allow, so never rename one — and add spellings that must be
 * caught and near-misses that must not to the corpus in `corpus/`. The corpus test fails for a
 * rule with no caught example.
 */
import { DANGEROUS_RULES } from "./dangerous-rules.js";
import { HARDLINE_RULES } from "./hardline-rules.js";
import { scanCommand } from "./segments.js";
import type { RuleContext } from "./simple-command.js";
import { sessionFileMatcher } from "./written-files.js";

export type CommandVerdict =
  | { kind: "hardline"; patternKey: string; description: string }
  | { kind: "dangerous"; patternKey: string; description: string };

export interface DetectOptions {
  /**
   * True when the command will run inside the OS sandbox (writes only in workspace and temp,
   * credentials unreadable). False or absent: strict, the detector also asks for what only the
   * sandbox would have contained.
   */
  sandboxed?: boolean;
  /**
   * Files the agent wrote earlier in this session (absolute, or relative to `cwd`). Running one
   * through a shell (`bash c.sh`, `source c.sh`, `./c.sh`) asks when not sandboxed, because its
   * content is not in the command text. Files written earlier in the same command line are
   * tracked without this.
   */
  writtenFiles?: Iterable<string>;
  /** The command's working directory, to resolve relative paths against `writtenFiles`. */
  cwd?: string;
}

const TOO_COMPLEX = { key: "too_complex", description: "command too deeply nested to check" };

/**
 * The verdict for one command line as the model wrote it: `hardline` (never run), `dangerous`
 * (ask the user; `patternKey` is what "allow for session/always" remembers) or undefined
 * (run). Pure for given options; never throws.
 */
export function detectDangerousCommand(command: string, options: DetectOptions = {}): CommandVerdict | undefined {
  try {
    const context: RuleContext = { sandboxed: options.sandboxed === true, writtenInSession: sessionFileMatcher(options.writtenFiles ?? [], options.cwd) };
    return judge(command, context);
  } catch {
    // A detector bug must not let a command through unchecked.
    return { kind: "dangerous", patternKey: TOO_COMPLEX.key, description: TOO_COMPLEX.description };
  }
}

function judge(command: string, context: RuleContext): CommandVerdict | undefined {
  const script = scanCommand(command);
  for (const rule of HARDLINE_RULES) {
    if (script.commands.some((cmd) => rule.matches(cmd, script, context))) {
      return { kind: "hardline", patternKey: rule.key, description: rule.description };
    }
  }
  const matched = DANGEROUS_RULES.filter((rule) => script.commands.some((cmd) => rule.matches(cmd, script, context)));
  if (script.truncated) matched.push({ ...TOO_COMPLEX, matches: () => true });
  if (matched.length === 0) return undefined;
  return {
    kind: "dangerous",
    patternKey: matched.map((rule) => rule.key).join("+"),
    description: matched.map((rule) => rule.description).join("; "),
  };
}
