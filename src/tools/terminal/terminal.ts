import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { processRegistry } from "../process/registry.js";
import { defineTool, type AnyTool, type ToolContext, type ToolResult } from "../types.js";
import { explainExitCode } from "./exit-codes.js";
import { guardCommand, type DangerDetector, type GuardVerdict } from "./guard.js";
import { runInClientTerminal } from "./client-run.js";
import { ProgressThrottle } from "./progress.js";
import { runForeground, type ForegroundOutcome } from "./run.js";
import { shellState } from "./shell-state.js";
import { terminalShell, shellArgs } from "./shell.js";
import { childEnv } from "./child-env.js";
import type { TerminalDetails, TerminalProgress } from "./details.js";
import { confine, type ExecSpec } from "../exec/confine.js";
import { sandboxDenialHint } from "../exec/sandbox/denials.js";
import { repairGit, snapshotGit } from "../exec/sandbox/git-tripwire.js";

/** Longest command accepted (it travels as one argv string, which Linux caps at 128 KiB). */
export const MAX_COMMAND_CHARS = 100_000;

export type { TerminalDetails, TerminalProgress } from "./details.js";

const terminalParams = z.lazy(() => z.object({
  command: z.string().min(1).describe("The command to run"),
  timeout: z.coerce.number().positive().optional().describe("Seconds before it is killed (default 180, max 600; longer: use background)"),
  background: z.boolean().optional().describe("Run in the background, returning a process id at once (then the process tool)"),
  workdir: z.string().min(1).optional().describe("Directory for this command only (absolute, or relative to the shell's cwd)"),
  sandbox: z
    .enum(["on", "off"])
    .optional()
    .describe('"off": run this command outside the sandbox once the user allows it, only when a sandboxed run failed because of the sandbox; give a reason'),
  reason: z.string().optional().describe('With sandbox "off": why it must run outside (shown to the user)'),
}));

export type TerminalArgs = z.infer<typeof terminalParams>;

const DESCRIPTION = [
  "Run a shell command with bash on the user's machine, in the project directory.",
  "The working directory and exported variables persist between calls (cd, export or activating a venv once is enough).",
  "stdout and stderr are merged; output over 50,000 characters keeps its start and end.",
  'Returns JSON: "output", "exit_code", and "exit_code_meaning" for common codes (grep 1 = no matches).',
  "Killed after `timeout` seconds (default 180, max 600); for servers, watchers and other long runs use",
  "background=true (never `&` or nohup), then the process tool to poll, read the log, wait or kill.",
  "No stdin: pass non-interactive flags (-y, CI=1); pipe pagers to cat (git --no-pager).",
  "Prefer read_file over cat/head/tail, search_files over grep/find/ls, patch over sed, write_file over echo/heredoc.",
  "Sandboxed: commands write only the project, temp folders and tool caches, cannot read credentials or change the",
  "agent's settings. Dangerous commands need the user's approval; some never run.",
].join(" ");

/** Builds the tool; `detect` replaces the dangerous-command detector in tests. */
export function createTerminalTool(options: { detect?: DangerDetector } = {}): AnyTool {
  return defineTool({
    name: "terminal",
    description: DESCRIPTION,
    kind: "execute",
    mutating: true,
    params: terminalParams,
    describe: (args) => ({ title: `terminal: ${args.command}`, locations: [] }),
    execute: (args, ctx) => executeTerminal(args, ctx, options.detect),
  });
}

export const terminalTool = createTerminalTool();

/**
 * Runs one terminal call. Never throws: refusals, bad workdirs, timeouts, cancellation and spawn
 * failures are results with `isError`; a non-zero exit code is a plain result (the code says it).
 */
export async function executeTerminal(
  args: TerminalArgs,
  ctx: ToolContext<TerminalProgress>,
  detect?: DangerDetector,
): Promise<ToolResult<TerminalDetails>> {
  const { command } = args;
  const shell = shellState(ctx.state);
  const start = shell.startCwd(ctx.cwd);
  const base = { command, cwd: start.cwd };

  if (command.length > MAX_COMMAND_CHARS) {
    return failure(base, `Command too long (${command.length} chars, max ${MAX_COMMAND_CHARS}). Write a script with write_file and run it.`);
  }
  if (args.sandbox === "off" && !args.reason?.trim()) {
    return failure(base, 'sandbox "off" needs a reason: say why the command cannot run in the sandbox; the user will see it.');
  }
  const escalation = args.sandbox === "off" && ctx.sandbox.mode !== "off" ? { reason: args.reason?.trim() ?? "" } : undefined;
  // Outside the sandbox a command starts from the session's folder, never from one a sandboxed
  // command may have chosen (or filled with a planted Makefile); `workdir` is resolved from there.
  const startCwd = escalation ? ctx.cwd : start.cwd;
  const effectiveCwd = args.workdir !== undefined ? resolveWorkdir(args.workdir, startCwd) : startCwd;
  if (escalation && ctx.sandbox.mode === "read-only") {
    return failure(base, "Commands cannot leave the sandbox in this mode (read-only: plan mode). Present the plan instead.", { status: "refused" });
  }
  const files = args.background ? shell.backgroundFiles({ fresh: escalation !== undefined }) : shell.prepareCall({ fresh: escalation !== undefined });
  const confinement = await confine(ctx, {
    escalated: escalation !== undefined,
    // The session's snapshots live in the agent's temp folder, which every sandbox mounts read-only.
    paths: { writable: files.callDir ? [files.callDir] : [] },
  });
  const settle = (): void => shell.discard(files);
  if (confinement.kind === "refused") {
    settle();
    return failure(base, confinement.message, { status: "refused" }, { sandbox: "unavailable" });
  }
  const sandboxed = confinement.kind === "sandboxed";
  const verdict = await guardCommand(command, ctx, detect, effectiveCwd, { sandboxed, ...(escalation ? { escalation: { ...escalation, cwd: effectiveCwd } } : {}) });
  if (verdict.action === "refuse") {
    settle();
    const status = verdict.reason === "hardline" ? "blocked" : verdict.reason;
    return failure(base, verdict.message, { status }, { refused: { reason: verdict.reason, patternKey: verdict.patternKey } });
  }
  const approval = verdict.approval;
  if (ctx.signal.aborted) {
    settle();
    const body = { output: "", exit_code: 130, error: "Command not run: the turn was cancelled." };
    return { content: JSON.stringify(body), details: { ...base, exitCode: 130, output: "", interrupted: true, error: body.error }, isError: true };
  }

  let cwd = startCwd;
  if (args.workdir !== undefined) {
    const resolved = effectiveCwd;
    if (!isDirectory(resolved)) {
      settle();
      return failure({ command, cwd: resolved }, `workdir does not exist or is not a directory: ${resolved}`);
    }
    cwd = resolved;
  }
  const env = childEnv(ctx.sessionId);
  const sandboxLabel: NonNullable<TerminalDetails["sandbox"]> = sandboxed ? confinement.plan.mode : confinement.reason;
  const notice = confinement.kind === "unconfined" ? confinement.notice : undefined;
  if (notice) ctx.ports.notifyUser?.(notice);
  const launch = (): ExecSpec => {
    const shell = terminalShell();
    const spec: ExecSpec = { file: shell.file, args: shellArgs(shell, files, ctx.sessionId, command), cwd };
    return sandboxed ? confinement.wrap(spec) : spec;
  };

  if (args.background) return startBackground(command, launch(), env, ctx, { approval, sandbox: sandboxLabel, notice });

  const requested = args.timeout ?? ctx.config.terminal.timeout;
  const timeoutSeconds = Math.min(requested, ctx.config.terminal.max_timeout);
  const gitBefore = sandboxed && confinement.plan.mode === "workspace-write" ? snapshotGit(ctx.cwd) : undefined;
  const outcome = await runCommand(launch(), { command, env, timeoutMs: timeoutSeconds * 1000, sandboxed }, ctx);
  const gitNotes = gitBefore ? repairGit(ctx.cwd, gitBefore) : [];
  if (!outcome.timedOut && !outcome.interrupted && !outcome.spawnError) {
    shell.adopt(files, { keepCwd: args.workdir !== undefined || escalation !== undefined });
  } else {
    settle();
  }

  const hint = sandboxed ? sandboxDenialHint(outcome.output, confinement.plan, outcome.exitCode) : undefined;
  const notes = [start.note, outcome.strayProcessesStopped ? STRAY_NOTE : undefined, escalation ? ESCALATED_NOTE : undefined, hint, ...gitNotes].filter(Boolean);
  const output = [tidy(outcome.output), ...notes].filter(Boolean).join("\n");
  const details: TerminalDetails = {
    command,
    cwd,
    exitCode: outcome.exitCode,
    output,
    sandbox: sandboxLabel,
    ...(approval ? { approval } : {}),
    ...(outcome.terminalId ? { terminalId: outcome.terminalId } : {}),
  };
  const extra: Record<string, unknown> = {};
  if (requested > timeoutSeconds) extra.note = `timeout capped at ${timeoutSeconds}s; use background=true for longer commands`;
  if (approval) extra.approval = approvalNote(approval);
  if (notice) extra.sandbox_notice = notice;

  if (outcome.spawnError) return failure({ command, cwd }, `Failed to execute command: ${outcome.spawnError}`);
  if (outcome.interrupted) {
    const body = { output, exit_code: 130, error: "Command interrupted: the turn was cancelled and its process group was killed." };
    return { content: JSON.stringify(body), details: { ...details, exitCode: 130, interrupted: true, error: body.error }, isError: true };
  }
  if (outcome.timedOut) {
    const error = `Command timed out after ${timeoutSeconds}s and its process group was killed. Use background=true for long-running commands.`;
    const body = { output, exit_code: 124, error, ...extra };
    return { content: JSON.stringify(body), details: { ...details, exitCode: 124, timedOut: true, error }, isError: true };
  }
  const meaning = explainExitCode(command, outcome.exitCode);
  const body = { output, exit_code: outcome.exitCode, ...(meaning ? { exit_code_meaning: meaning } : {}), ...extra };
  return { content: JSON.stringify(body), details };
}

/**
 * Runs the wrapped command in the editor's terminal when the editor offers one
 * (`ports.runInClientTerminal`: the terminal is embedded in the tool call as soon as it exists),
 * else with local bash, streaming the output so far to `ctx.reportProgress` through a throttle
 * that is stopped before this returns (no progress after the result). Never rejects.
 */
async function runCommand(
  spec: ExecSpec,
  run: { command: string; env: NodeJS.ProcessEnv; timeoutMs: number; sandboxed: boolean },
  ctx: ToolContext<TerminalProgress>,
): Promise<ForegroundOutcome & { terminalId?: string }> {
  const base = { command: run.command, cwd: spec.cwd, running: true as const };
  const report = ctx.reportProgress;
  const outputCap = ctx.config.terminal.output_cap;
  const port = ctx.ports.runInClientTerminal;
  if (port) {
    return runInClientTerminal(port, {
      file: spec.file,
      args: spec.args,
      cwd: spec.cwd,
      timeoutMs: run.timeoutMs,
      signal: ctx.signal,
      outputCap,
      onStarted: (terminalId) => report?.({ ...base, terminalId }),
    });
  }
  let soFar: (() => string) | undefined;
  const throttle = new ProgressThrottle(() => {
    const all = tidy(soFar?.() ?? "");
    const output = all.length > PROGRESS_TAIL_CHARS ? `…\n${all.slice(-PROGRESS_TAIL_CHARS)}` : all;
    if (output) report?.({ ...base, output });
  });
  try {
    return await runForeground(
      { file: spec.file, args: spec.args, cwd: spec.cwd, env: run.env },
      {
        timeoutMs: run.timeoutMs,
        signal: ctx.signal,
        outputCap,
        reportStrays: !run.sandboxed,
        ...(report
          ? {
              onOutput: (latest: () => string) => {
                soFar = latest;
                throttle.poke();
              },
            }
          : {}),
      },
    );
  } finally {
    throttle.stop();
  }
}

/** Output a progress report carries: the latest part, which is what a user watching wants. */
const PROGRESS_TAIL_CHARS = 4000;

const ESCALATED_NOTE = "[ran outside the sandbox with the user's permission, from a fresh environment: variables exported by earlier commands were not restored]";

const STRAY_NOTE = "[processes the command left running in the background were stopped; use background=true for long-running processes]";

function startBackground(
  command: string,
  spec: ExecSpec,
  env: NodeJS.ProcessEnv,
  ctx: ToolContext,
  run: { approval: Extract<GuardVerdict, { action: "run" }>["approval"]; sandbox: NonNullable<TerminalDetails["sandbox"]>; notice: string | undefined },
): ToolResult<TerminalDetails> {
  const { approval } = run;
  const started = processRegistry(ctx.state).start({ ...spec, env }, command, { sandboxed: run.sandbox === "workspace-write" || run.sandbox === "read-only" });
  if ("error" in started) return failure({ command, cwd: spec.cwd }, `Could not start background process: ${started.error}`);
  const body = {
    output: "Background process started",
    session_id: started.id,
    pid: started.pid,
    status: "running",
    hint: `Follow it with process(action="poll" | "log" | "wait" | "kill", session_id="${started.id}").`,
    ...(approval ? { approval: approvalNote(approval) } : {}),
    ...(run.notice ? { sandbox_notice: run.notice } : {}),
  };
  const details: TerminalDetails = {
    command,
    cwd: spec.cwd,
    exitCode: 0,
    output: "",
    background: { id: started.id, pid: started.pid },
    sandbox: run.sandbox,
    ...(approval ? { approval } : {}),
  };
  return { content: JSON.stringify(body), details };
}

function failure(
  base: { command: string; cwd: string },
  error: string,
  extra: Record<string, unknown> = {},
  extraDetails: Partial<TerminalDetails> = {},
): ToolResult<TerminalDetails> {
  const details: TerminalDetails = { ...base, exitCode: -1, output: "", error, ...extraDetails };
  return { content: JSON.stringify({ output: "", exit_code: -1, error, ...extra }), details, isError: true };
}

function approvalNote(approval: NonNullable<TerminalDetails["approval"]>): string {
  const by = approval.via === "user" ? "approved by the user" : "allowed by command_allowlist";
  return `dangerous command (${approval.description}) ${by}`;
}

/** Drops leading blank lines and trailing whitespace. */
function tidy(output: string): string {
  return output.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
}

function resolveWorkdir(workdir: string, cwd: string): string {
  if (workdir === "~") return os.homedir();
  if (workdir.startsWith("~/")) return path.join(os.homedir(), workdir.slice(2));
  return path.resolve(cwd, workdir);
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
