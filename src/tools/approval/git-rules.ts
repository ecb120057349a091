/**
 * Git rules: commands that lose work the sandbox cannot protect because it lives inside the
 * workspace (uncommitted changes, stashes, reflog, refs, remote history), and commands that make
 * git run programs later (hooks, `core.hooksPath`, `alias.x=!…`, `core.fsmonitor`, …). All ask.
 * Table order is the order keys appear in a combined verdict; never rename a key.
 */
import { parseArgs } from "./argv.js";
import { gitCall, gitConfigRisk, gitConfigSettings, isGitConfigFile, isGitHooksPath, type GitConfigRisk } from "./git.js";
import type { CommandRule, SimpleCommand } from "./simple-command.js";
import { writeTargets } from "./write-targets.js";

function gitRule(subs: string | readonly string[], test: (args: string[]) => boolean): (command: SimpleCommand) => boolean {
  const wanted = typeof subs === "string" ? [subs] : subs;
  return (command) => {
    const call = gitCall(command);
    return call !== undefined && wanted.includes(call.sub) && test(call.args);
  };
}

const gitResetHard = gitRule("reset", (args) => args.some((arg) => /^--h(?:a(?:r(?:d)?)?)?$/.test(arg)));
const gitForcePush = gitRule("push", (args) => {
  const parsed = parseArgs(args, { shortValue: "o", longValue: ["push-option", "repo", "receive-pack", "exec"] });
  return parsed.shorts.has("f") || [...parsed.longs].some((long) => /^for/.test(long) || long === "mirror") || parsed.operands.some((ref) => ref.startsWith("+"));
});
const gitClean = gitRule("clean", (args) => {
  const parsed = parseArgs(args, { shortValue: "e", longValue: ["exclude"] });
  const force = parsed.shorts.has("f") || parsed.longs.has("force");
  return force && !parsed.shorts.has("n") && !parsed.longs.has("dry-run");
});
const gitBranchForceDelete = gitRule("branch", (args) => {
  const parsed = parseArgs(args);
  const remove = parsed.shorts.has("d") || parsed.longs.has("delete");
  return parsed.shorts.has("D") || (remove && (parsed.shorts.has("f") || parsed.longs.has("force")));
});

/** An operand of `git checkout` that is a path rather than a branch: `.`, `./x`, `*.ts`, `:/`, `src/a.ts`. */
function looksLikePath(operand: string): boolean {
  return /^(?:\.{1,2}(?:\/.*)?|:.*|\/.*)$/.test(operand) || /[*?[]/.test(operand) || /\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(operand);
}

/**
 * `git checkout -- paths`, `git checkout .`, `git checkout REV paths`, `git checkout -f`;
 * `git restore` of the worktree (not `--staged` alone); `git switch -f|--discard-changes`;
 * `git worktree remove --force`. `git checkout -b x`, `git checkout main`, `git checkout -p` do not lose work silently.
 */
function discardsChanges(command: SimpleCommand): boolean {
  const call = gitCall(command);
  if (!call) return false;
  const { sub, args } = call;
  if (sub === "checkout") {
    const parsed = parseArgs(args, { shortValue: "bB", longValue: ["orphan", "pathspec-from-file", "conflict"] });
    if (parsed.shorts.has("p") || parsed.longs.has("patch")) return false;
    if (parsed.shorts.has("f") || parsed.longs.has("force") || parsed.longs.has("pathspec-from-file")) return true;
    const dash = args.indexOf("--");
    if (dash !== -1 && args.length > dash + 1) return true;
    const creates = parsed.shorts.has("b") || parsed.shorts.has("B") || parsed.longs.has("orphan");
    if (creates) return false;
    return parsed.operands.length >= 2 || parsed.operands.some(looksLikePath);
  }
  if (sub === "restore") {
    const parsed = parseArgs(args, { shortValue: "s", longValue: ["source", "pathspec-from-file"] });
    const staged = parsed.shorts.has("S") || parsed.longs.has("staged");
    const worktree = parsed.shorts.has("W") || parsed.longs.has("worktree");
    return !staged || worktree;
  }
  if (sub === "switch") {
    const parsed = parseArgs(args, { shortValue: "cC", longValue: ["create", "force-create", "orphan"] });
    return parsed.shorts.has("f") || parsed.longs.has("force") || parsed.longs.has("discard-changes");
  }
  if (sub === "worktree" && args[0] === "remove") {
    const parsed = parseArgs(args.slice(1));
    return parsed.shorts.has("f") || parsed.longs.has("force");
  }
  return false;
}

const gitStashDrop = gitRule("stash", (args) => args[0] === "clear" || args[0] === "drop");

const PRUNE_NOW = /^--prune=(?:now|all|\d+\.(?:seconds?|minutes?|hours?)\.ago)$/i;

/** `git reflog expire|delete`, `git gc --prune=now|all`, `git prune` (not `-n`): unreachable commits become unrecoverable. */
function prunesHistory(command: SimpleCommand): boolean {
  const call = gitCall(command);
  switch (call?.sub) {
    case "reflog":
      return call.args[0] === "expire" || call.args[0] === "delete";
    case "gc":
      return call.args.some((arg) => PRUNE_NOW.test(arg));
    case "prune": {
      const parsed = parseArgs(call.args, { longValue: ["expire"] });
      return !parsed.shorts.has("n") && !parsed.longs.has("dry-run");
    }
    default:
      return false;
  }
}

function rewritesHistory(command: SimpleCommand): boolean {
  if (command.name === "bfg" || command.name === "git-filter-repo") return true;
  const call = gitCall(command);
  return call !== undefined && (call.sub === "filter-branch" || call.sub === "filter-repo");
}

/** `git update-ref -d`, `git symbolic-ref -d`, `git push --delete|-d`, `git push origin :ref`, `git push --prune`. */
const gitDeleteRef = (command: SimpleCommand): boolean => {
  const call = gitCall(command);
  if (!call) return false;
  const parsed = parseArgs(call.args, { shortValue: "mo", longValue: ["push-option", "repo", "receive-pack", "exec", "create-reflog"] });
  if (call.sub === "update-ref" || call.sub === "symbolic-ref") return parsed.shorts.has("d") || parsed.longs.has("delete");
  if (call.sub !== "push") return false;
  return parsed.shorts.has("d") || parsed.longs.has("delete") || parsed.longs.has("prune") || parsed.operands.slice(1).some((ref) => /^:[^:]/.test(ref));
};

function configRule(risk: GitConfigRisk): (command: SimpleCommand) => boolean {
  return (command) => gitConfigSettings(command).some((setting) => gitConfigRisk(setting) === risk);
}

/** Writes into a hooks directory (redirects, `cp`, `mv`, `tee`, `ln`, `install`, `sed -i`), `chmod` there, `cd` into it, or setting `core.hooksPath`. */
function touchesHooks(command: SimpleCommand): boolean {
  if (configRule("hooks")(command)) return true;
  if (writeTargets(command).some(isGitHooksPath)) return true;
  const { name, args } = command;
  if (name === "chmod" || name === "chown") return parseArgs(args).operands.slice(1).some(isGitHooksPath);
  if (name === "cd" || name === "pushd") return args.some((arg) => !arg.startsWith("-") && isGitHooksPath(arg));
  return false;
}

function setsExecConfig(command: SimpleCommand): boolean {
  return configRule("exec")(command) || writeTargets(command).some(isGitConfigFile);
}

export const GIT_RULES: readonly CommandRule[] = [
  { key: "git_reset_hard", description: "discard local changes (git reset --hard)", matches: gitResetHard },
  { key: "git_force_push", description: "force-push, rewriting remote history", matches: gitForcePush },
  { key: "git_clean", description: "delete untracked files (git clean -f)", matches: gitClean },
  { key: "git_branch_force_delete", description: "force-delete a git branch", matches: gitBranchForceDelete },
  { key: "git_discard_changes", description: "discard uncommitted changes (git checkout -- / git restore)", matches: discardsChanges },
  { key: "git_stash_drop", description: "delete stashed changes (git stash drop / clear)", matches: gitStashDrop },
  { key: "git_prune_history", description: "expire the reflog or prune unreachable commits", matches: prunesHistory },
  { key: "git_rewrite_history", description: "rewrite git history (filter-branch / filter-repo)", matches: rewritesHistory },
  { key: "git_delete_ref", description: "delete a git ref or remote branch", matches: gitDeleteRef },
  { key: "git_hooks", description: "install or redirect git hooks (.git/hooks, core.hooksPath)", matches: touchesHooks },
  { key: "git_config_exec", description: "make git run a program (alias !…, core.fsmonitor, pager, filters, .git/config)", matches: setsExecConfig },
];
