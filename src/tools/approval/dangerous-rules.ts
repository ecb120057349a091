/**
 * Dangerous rules: commands that run only after the user allows them. Table order is the
 * order keys appear in a combined verdict (`rm_recursive+sudo`), so modifiers such as `sudo`
 * come last. Topic tables live in their own files and are spliced in here: git
 * (`git-rules.ts`), infrastructure (`infra-rules.ts`), databases and cron (`service-rules.ts`),
 * exfiltration (`exfiltration.ts`) and the rules that apply only outside the sandbox
 * (`unsandboxed-rules.ts`). Every other rule applies in both modes.
 */
import { commandName, parseArgs } from "./argv.js";
import { codeFeeds, isDecoder, isDownloader, runsDecodedInlineCode } from "./code-sources.js";
import { EXFILTRATION_RULES } from "./exfiltration.js";
import { GIT_RULES } from "./git-rules.js";
import { rmInvocation } from "./hardline-rules.js";
import { INFRA_RULES } from "./infra-rules.js";
import { classifyWriteTarget, type WriteTargetKey } from "./paths.js";
import type { CommandRule, SimpleCommand } from "./simple-command.js";
import { sqlFindings, sqlTexts, type SqlFinding } from "./sql.js";
import { uninstallsPackages } from "./package-managers.js";
import { SERVICE_RULES } from "./service-rules.js";
import { UNSANDBOXED_RULES } from "./unsandboxed-rules.js";
import { findExecArgvs } from "./wrappers.js";
import { writeTargets } from "./write-targets.js";

/**
 * `cd` / `pushd` into ~/.hermes, ~/.ssh or /etc: what follows may write there with relative
 * paths the write rules cannot see (`cd ~/.hermes && echo … > config.yaml`).
 */
function entersProtectedDir({ name, args }: SimpleCommand): boolean {
  if (name !== "cd" && name !== "pushd") return false;
  const target = args.find((arg) => !arg.startsWith("-"));
  if (!target) return false;
  const key = classifyWriteTarget(`${target.replace(/\/+$/, "")}/x`);
  return key === "write_hermes_config" || key === "write_ssh" || key === "write_etc";
}

function findDeletes({ name, args }: SimpleCommand): boolean {
  if (name !== "find") return false;
  if (args.includes("-delete")) return true;
  return findExecArgvs(args).some((argv) => ["rm", "unlink", "shred", "rmdir"].includes(commandName(argv[0] ?? "")));
}

/** `777`, `0666`, `o+w`, `a=rwx`, `ugo+w`, `u+x,o+w`: anything granting write to others. */
function isWorldWritableMode(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode[mode.length - 1]) & 2) !== 0;
  if (!/^[ugoa]*[-+=][rwxXstugo]*(?:,[ugoa]*[-+=][rwxXstugo]*)*$/.test(mode)) return false;
  return mode.split(",").some((clause) => {
    const who = /^[ugoa]*/.exec(clause)?.[0] ?? "";
    const grants = /[+=][rwxXst]*/g;
    const grantsWrite = [...clause.matchAll(grants)].some((match) => match[0].includes("w"));
    return (who.includes("o") || who.includes("a")) && grantsWrite;
  });
}

function chownsToRootRecursively({ name, args }: SimpleCommand): boolean {
  if (name !== "chown") return false;
  const parsed = parseArgs(args, { longValue: ["from", "reference"] });
  const recursive = parsed.shorts.has("R") || parsed.longs.has("recursive");
  return recursive && /^(?:root|0)(?:[:.].*)?$/.test(parsed.operands[0] ?? "");
}

function sqlRule(finding: SqlFinding): (command: SimpleCommand) => boolean {
  return (command) => sqlTexts(command).some((sql) => sqlFindings(sql).has(finding));
}

function writeRule(key: WriteTargetKey): (command: SimpleCommand) => boolean {
  return (command) => writeTargets(command).some((path) => classifyWriteTarget(path) === key);
}

const METADATA_RE = /169\.254\.169\.254|169\.254\.170\.2\b|metadata\.google\.internal|metadata\.azure\.com|fd00:ec2::254|100\.100\.100\.200|\b2852039166\b|0xa9fea9fe/i;
/** Commands that only print or search text; an address in their arguments is not a request. */
const TEXT_ONLY = new Set(["echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "git"]);

function reachesMetadata(command: SimpleCommand): boolean {
  if (TEXT_ONLY.has(command.name)) return false;
  return [...command.args, ...command.redirects.map((redirect) => redirect.target)].some((text) => METADATA_RE.test(text));
}

const PRIVILEGE = new Set(["sudo", "doas", "pkexec", "run0", "su"]);

export const DANGEROUS_RULES: readonly CommandRule[] = [
  { key: "rm_recursive", description: "recursive delete", matches: (c) => rmInvocation(c)?.recursive === true },
  { key: "find_delete", description: "delete the files find matches", matches: findDeletes },
  { key: "chmod_world_writable", description: "make files world-writable", matches: (c) => c.name === "chmod" && c.args.some(isWorldWritableMode) },
  { key: "chown_recursive_root", description: "recursively give files to root", matches: chownsToRootRecursively },
  { key: "remote_code", description: "run code downloaded from the network", matches: (c) => codeFeeds(c).some(isDownloader) },
  { key: "decode_exec", description: "decode and run hidden code", matches: (c) => codeFeeds(c).some(isDecoder) || runsDecodedInlineCode(c) },
  { key: "write_hermes_config", description: "write to the Hermes configuration (~/.hermes)", matches: writeRule("write_hermes_config") },
  { key: "write_ssh", description: "write to SSH keys or configuration (~/.ssh)", matches: writeRule("write_ssh") },
  { key: "write_shell_rc", description: "write to a shell startup file", matches: writeRule("write_shell_rc") },
  { key: "write_credentials", description: "write to a credentials file", matches: writeRule("write_credentials") },
  { key: "write_env_file", description: "write to an .env file", matches: writeRule("write_env_file") },
  { key: "write_etc", description: "write to system configuration (/etc)", matches: writeRule("write_etc") },
  { key: "enter_protected_dir", description: "work inside a protected folder (~/.hermes, ~/.ssh or /etc)", matches: entersProtectedDir },
  ...GIT_RULES,
  { key: "sql_drop", description: "drop a database or table (SQL DROP)", matches: sqlRule("drop") },
  { key: "sql_truncate", description: "empty a table (SQL TRUNCATE)", matches: sqlRule("truncate") },
  { key: "sql_delete_all", description: "delete every row (SQL DELETE without WHERE)", matches: sqlRule("delete_all") },
  ...SERVICE_RULES,
  ...INFRA_RULES,
  { key: "package_uninstall", description: "uninstall packages", matches: uninstallsPackages },
  { key: "cloud_metadata", description: "query the cloud metadata service (instance credentials)", matches: reachesMetadata },
  ...EXFILTRATION_RULES,
  ...UNSANDBOXED_RULES,
  { key: "sudo", description: "run with superuser privileges", matches: (c) => PRIVILEGE.has(c.name) || c.wrappers.some((w) => PRIVILEGE.has(w)) },
];
