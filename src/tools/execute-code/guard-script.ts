import { askPort } from "../ports.js";
import { commandAllowlist, guardCommand, loadDetector, type DangerDetector, type GuardVerdict } from "../terminal/guard.js";
import type { ToolContext } from "../types.js";
import { scriptCommands } from "./script-commands.js";

/** The rule key and wording of Hermes' approval of a whole script (`check_execute_code_guard`). */
export const SCRIPT_PATTERN_KEY = "execute_code";
export const SCRIPT_DESCRIPTION =
  "execute_code script execution without a sandbox: the script can start programs and change files without the terminal's approval checks";

/**
 * Decides whether a script may run, as for a command: the dangerous-command guard checks the
 * commands the script spells out (`scriptCommands`: its string literals and argv lists; those the
 * detector flags are checked together, one per line, so one question shows them all), else the
 * code itself; `sandboxed` tells it the OS sandbox confines the run. A hardline command is
 * refused, a dangerous one asks. Outside a sandbox the script as a whole must be approved too
 * (Hermes asks once per script where a user can answer): `command_allowlist` naming
 * `execute_code`, or the user through `ports.approveCommand` (fail closed; a cancel while asking
 * refuses). An approval of the commands it spells out (asked, allowlisted or allowed for the
 * session) covers those commands only, never the rest of an unconfined script, so it does not
 * stand in for this one. Never throws.
 */
export async function guardScript(code: string, ctx: ToolContext, options: { sandboxed: boolean; detect?: DangerDetector }): Promise<GuardVerdict> {
  // A detector that cannot load flags every command, and guardCommand then refuses the script.
  const detect: DangerDetector =
    options.detect ??
    (await loadDetector().then(
      (loaded) => loaded.detect,
      () => () => {
        throw new Error("the dangerous-command detector did not load");
      },
    ));
  const flagged = scriptCommands(code).filter((command) => {
    try {
      return detect(command, { sandboxed: options.sandboxed, cwd: ctx.cwd }) !== undefined;
    } catch {
      return true; // guardCommand refuses what cannot be checked
    }
  });
  const checked = flagged.length ? flagged.join("\n") : code;
  const verdict = await guardCommand(checked, ctx, options.detect, ctx.cwd, { sandboxed: options.sandboxed });
  if (verdict.action === "refuse" || options.sandboxed) return verdict;
  const approval = { patternKey: SCRIPT_PATTERN_KEY, description: SCRIPT_DESCRIPTION };
  if (commandAllowlist(ctx.config).includes(SCRIPT_PATTERN_KEY)) return { action: "run", approval: { ...approval, via: "allowlist" } };
  // the script as a whole cannot be judged by reading it: only the user answers (never the smart guardian)
  const asked = askPort(ctx.ports.approveCommand, { callId: ctx.callId, command: code, ...approval, userOnly: true });
  const answer = await raceAbort(asked, ctx.signal);
  if (answer === "aborted") {
    return { action: "refuse", reason: "cancelled", patternKey: SCRIPT_PATTERN_KEY, message: "The script was not run: the turn was cancelled while waiting for approval." };
  }
  if (answer) return { action: "run", approval: { ...approval, via: "user" } };
  return {
    action: "refuse",
    reason: "denied",
    patternKey: SCRIPT_PATTERN_KEY,
    message: "The user did not allow this script to run (there is no sandbox here). It was not run. Use the tools directly instead, or ask the user how to proceed.",
  };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    const onAbort = (): void => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    });
  });
}
