import { isAbsolute, relative, resolve } from "node:path";
import { classifyWriteTarget } from "../approval/paths.js";
import type { HermesConfig } from "../../config/schema.js";
import type { detectDangerousCommand, DetectOptions } from "../approval/dangerous-commands.js";
import { fileTracker } from "../file-tracker/file-tracker.js";
import { askPort, type CommandApprovalRequest } from "../ports.js";
import { normalizeCommand } from "../approval/normalize.js";
import type { ToolContext } from "../types.js";

/**
 * The detector's API (owned by `../approval/dangerous-commands.ts`); injectable for tests.
 * `sandboxed` says the command runs inside the OS sandbox, so the detector may leave to it what
 * the sandbox confines.
 */
export type DangerDetector = (command: string, options?: DetectOptions) => ReturnType<typeof detectDangerousCommand>;

/**
 * The detector and the write-target scan, loaded on the first command checked: their rule tables
 * are ~70 KB of code no session needs before it runs a command. Rejects only when the bundle is
 * damaged; callers treat that as a detector failure (refuse).
 */
export function loadDetector(): Promise<LoadedDetector> {
  detectorModules ??= Promise.all([import("../approval/dangerous-commands.js"), import("../approval/session-writes.js")])
    .then(([detector, writes]) => {
      const loaded = { detect: detector.detectDangerousCommand, filesWrittenBy: writes.filesWrittenBy };
      if (typeof loaded.detect !== "function" || typeof loaded.filesWrittenBy !== "function") throw new Error("the dangerous-command detector did not load whole");
      return loaded;
    })
    .catch((error: unknown) => {
      // Not kept: the next command tries again (and is refused too while the load fails).
      detectorModules = undefined;
      throw error;
    });
  return detectorModules;
}

interface LoadedDetector {
  detect: DangerDetector;
  /** The files a command writes (redirections, tee, cp, sed -i...), as the session's record keeps them. */
  filesWrittenBy: (command: string) => string[];
}

let detectorModules: Promise<LoadedDetector> | undefined;

const SESSION_WRITES_KEY = Symbol("hermes.terminal.session-writes");

/**
 * The files this session wrote, absolute: through the file tools, and the write targets of every
 * command checked so far. Live: commands add to it.
 */
function sessionWrites(ctx: ToolContext): Set<string> {
  const written = ctx.state.get(SESSION_WRITES_KEY, () => new Set<string>());
  for (const path of fileTracker(ctx.state).written()) written.add(path);
  return written;
}

/**
 * What the guard decided. `run` carries the approval note when the user allowed a dangerous
 * command (Hermes adds it to the result as an audit trail).
 */
export type GuardVerdict =
  | { action: "run"; approval?: { patternKey: string; description: string; via: "user" | "allowlist" } }
  | { action: "refuse"; reason: "hardline" | "denied" | "cancelled"; message: string; patternKey: string };

/**
 * Checks a command before it runs. Hardline commands are refused without asking, whatever the
 * settings. Dangerous ones run only when their pattern key is in `command_allowlist` or the
 * user allows them through `ports.approveCommand` (fail closed: no port, an error or anything
 * but `true` is a deny). A cancel while the question is open refuses. `detect` replaces the
 * built-in detector (tests). Never throws.
 */
export async function guardCommand(
  command: string,
  ctx: ToolContext,
  detect?: DangerDetector,
  cwd?: string,
  options: GuardOptions = { sandboxed: false },
): Promise<GuardVerdict> {
  let match: ReturnType<DangerDetector>;
  try {
    const { detect: builtIn, filesWrittenBy } = await loadDetector();
    const written = sessionWrites(ctx);
    match = (detect ?? builtIn)(command, { sandboxed: options.sandboxed, writtenFiles: written, ...(cwd ? { cwd } : {}) }) ?? (cwd ? protectedCwdVerdict(cwd, ctx.hermesHome) : undefined);
    // Recorded whatever the verdict: a later `bash c.sh` of what this command writes is known.
    for (const target of filesWrittenBy(command)) written.add(resolve(cwd ?? ctx.cwd, target));
  } catch {
    // A detector failure must not let a command through unchecked.
    return {
      action: "refuse",
      reason: "denied",
      patternKey: "detector_error",
      message: "This command could not be checked for safety, so it was not run. Rephrase it more simply.",
    };
  }
  if (match?.kind === "hardline") {
    const { patternKey, description } = match;
    return { action: "refuse", reason: "hardline", patternKey, message: `blocked: ${description}; this command is never run` };
  }
  if (options.escalation) return askEscalation(command, ctx, match, options.escalation);
  if (!match) return { action: "run" };
  const { patternKey, description } = match;
  const allowlist = commandAllowlist(ctx.config);
  if (allowlist.includes(patternKey) || allowlist.includes(allowanceKey(command))) {
    return { action: "run", approval: { patternKey, description, via: "allowlist" } };
  }
  const denied =
    `The user denied this command (${description}). It was not run. Do not retry it, and do not try to ` +
    "achieve the same effect another way; continue without it or ask the user how to proceed.";
  return askUser(ctx, { callId: ctx.callId, command, patternKey, description }, denied);
}

/** Asks the user through the approval port (fail closed), racing the turn's cancellation. */
async function askUser(ctx: ToolContext, request: CommandApprovalRequest, deniedMessage: string): Promise<GuardVerdict> {
  const { patternKey, description } = request;
  const answer = await raceAbort(askPort(ctx.ports.approveCommand, request), ctx.signal);
  if (answer === "aborted") {
    return { action: "refuse", reason: "cancelled", patternKey, message: "The command was not run: the turn was cancelled while waiting for approval." };
  }
  if (answer) return { action: "run", approval: { patternKey, description, via: "user" } };
  return { action: "refuse", reason: "denied", patternKey, message: deniedMessage };
}

export interface GuardOptions {
  /** The command runs inside the OS sandbox (the detector can then leave what it confines to it). */
  sandboxed: boolean;
  /** The model asked to run this command outside the sandbox, for this reason, in this folder. */
  escalation?: { reason: string; cwd: string };
}

/** The rule key of an escalation that matched no dangerous rule. */
export const ESCALATION_KEY = "sandbox_escalation";

/**
 * Asks to run `command` outside the sandbox: always the user (no allowlist, no allowance), with
 * the reason and any danger the detector saw in one question. Fails closed like every ask.
 */
async function askEscalation(
  command: string,
  ctx: ToolContext,
  match: ReturnType<DangerDetector>,
  escalation: { reason: string; cwd: string },
): Promise<GuardVerdict> {
  const patternKey = match?.patternKey ?? ESCALATION_KEY;
  const description = `run outside the sandbox${match ? ` (${match.description})` : ""}`;
  const denied =
    "The user did not allow this command outside the sandbox. It was not run. Do not retry it outside the sandbox; " +
    "continue within the sandbox or ask the user how to proceed.";
  return askUser(ctx, { callId: ctx.callId, command, patternKey, description, escalation }, denied);
}

/**
 * The form of a command an allowance remembers ("allow for session", "allow always"): the
 * normalized text with runs of white space folded. An allowance covers exactly the command the
 * user saw, never the whole rule that matched it.
 */
export function allowanceKey(command: string): string {
  return normalizeCommand(command).trim().replace(/\s+/g, " ");
}

/**
 * A command run from inside HERMES_HOME, ~/.ssh or /etc asks like a write there would: a relative
 * `> config.yaml` is not caught by the path rules, which see only what the command spells out.
 */
function protectedCwdVerdict(cwd: string, hermesHome: string): ReturnType<DangerDetector> {
  const inside = (root: string): boolean => {
    const rel = relative(resolve(root), resolve(cwd));
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  };
  const key = inside(hermesHome) ? "write_hermes_config" : classifyWriteTarget(`${cwd}/x`);
  if (key !== "write_hermes_config" && key !== "write_ssh" && key !== "write_etc") return undefined;
  return { kind: "dangerous", patternKey: "protected_cwd", description: `run a command inside a protected folder (${cwd})` };
}

/**
 * What the user allowed permanently (`command_allowlist` in config.yaml): allowance keys of
 * commands, and rule keys (Python Hermes writes those; still honoured). Bad entries are ignored.
 */
export function commandAllowlist(config: HermesConfig): string[] {
  const value = (config as { command_allowlist?: unknown }).command_allowlist;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
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
