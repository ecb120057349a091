import { constants } from "node:os";

/**
 * Plain-language meaning of a non-zero exit code, so the model does not spend a turn
 * investigating `grep` exit 1 ("no matches") or `diff` exit 1 ("files differ"). The command
 * that decides the exit code is the last one of a pipeline or `&&` / `||` / `;` chain.
 */

const NO_MATCHES = "No matches found (not an error)";
const FILES_DIFFER = "Files differ (expected, not an error)";
const CONDITION_FALSE = "Condition is false (not an error)";

/** Meanings that depend on the command, keyed by its base name. */
const BY_COMMAND: Record<string, Record<number, string>> = {
  grep: { 1: NO_MATCHES, 2: "grep failed (bad pattern, or a file could not be read)" },
  egrep: { 1: NO_MATCHES },
  fgrep: { 1: NO_MATCHES },
  rg: { 1: NO_MATCHES, 2: "rg failed (bad pattern, or a file could not be read)" },
  ag: { 1: NO_MATCHES },
  ack: { 1: NO_MATCHES },
  diff: { 1: FILES_DIFFER, 2: "diff failed (missing file or other trouble)" },
  colordiff: { 1: FILES_DIFFER },
  cmp: { 1: FILES_DIFFER },
  test: { 1: CONDITION_FALSE },
  "[": { 1: CONDITION_FALSE },
  "[[": { 1: CONDITION_FALSE },
  find: { 1: "Some paths could not be read (partial results may still be valid)" },
  curl: {
    6: "Could not resolve host",
    7: "Failed to connect to host",
    22: "HTTP error response (status 400 or above, with --fail)",
    28: "Operation timed out",
    35: "TLS/SSL handshake failed",
  },
  pytest: { 1: "Some tests failed", 2: "Test run interrupted or usage error", 5: "No tests were collected" },
  timeout: { 124: "The command hit the `timeout` utility's limit and was stopped" },
};

/** Meanings that hold for any command. */
const GENERAL: Record<number, string> = {
  2: "Misuse of a shell builtin or invalid arguments (for bash itself: a syntax error)",
  124: "Timed out",
  126: "Command found but not executable (permission denied, or not a program)",
  127: "Command not found (check the spelling and PATH, or install it)",
  130: "Interrupted (SIGINT / Ctrl-C)",
  134: "Aborted (SIGABRT)",
  137: "Killed (SIGKILL; often out of memory or a forced stop)",
  139: "Segmentation fault (SIGSEGV)",
  141: "Broken pipe (SIGPIPE; usually harmless when output was piped into head or similar)",
  143: "Terminated (SIGTERM)",
};

/** Wrappers that run the next word as the command. */
const WRAPPERS = new Set(["sudo", "env", "time", "nice", "nohup", "command", "exec", "builtin", "xargs", "stdbuf"]);

/** Base name of the command that determines the exit status of `command`. */
export function lastCommandName(command: string): string | undefined {
  const segments = command.split(/\|\||&&|[|;\n]/);
  for (let i = segments.length - 1; i >= 0; i--) {
    const words = (segments[i] ?? "").trim().split(/\s+/).filter(Boolean);
    let name: string | undefined;
    for (const word of words) {
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
      if (word.startsWith("-") && name === undefined) continue;
      const base = word.replace(/^[({]+/, "").split("/").pop() ?? word;
      if (WRAPPERS.has(base)) continue;
      if (base === "!") continue;
      name = base;
      break;
    }
    if (name) return name;
  }
  return undefined;
}

/** Explanation for a non-zero exit code, or undefined for 0 and codes with no common meaning. */
export function explainExitCode(command: string, exitCode: number): string | undefined {
  if (exitCode === 0) return undefined;
  const name = lastCommandName(command);
  const specific = name ? BY_COMMAND[name]?.[exitCode] : undefined;
  if (specific) return specific;
  const general = GENERAL[exitCode];
  if (general) return general;
  if (exitCode > 128 && exitCode < 128 + 65) {
    const signal = Object.entries(constants.signals).find(([, number]) => number === exitCode - 128)?.[0];
    return `Killed by signal ${exitCode - 128}${signal ? ` (${signal})` : ""}`;
  }
  return undefined;
}
