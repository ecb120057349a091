import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { agentTempRoot } from "../exec/agent-temp.js";
import { confine, type ExecSpec } from "../exec/confine.js";
import { sandboxDenialHint } from "../exec/sandbox/denials.js";
import { repairGit, snapshotGit } from "../exec/sandbox/git-tripwire.js";
import type { InnerToolsPort } from "../ports.js";
import { childEnv } from "../terminal/child-env.js";
import type { DangerDetector } from "../terminal/guard.js";
import { ProgressThrottle } from "../terminal/progress.js";
import { defineTool, type AnyTool, type ToolContext, type ToolResult } from "../types.js";
import { serveChannel, type ChannelServer } from "./channel.js";
import { MAX_LISTED_CALLS, type ExecuteCodeDetails, type ExecuteCodeProgress, type InnerCall } from "./details.js";
import { guardScript } from "./guard-script.js";
import { hermesToolsModule, LAUNCHER_FILE, scriptLauncher, scriptTools } from "./hermes-tools-module.js";
import { scriptLimits } from "./limits.js";
import { scriptReport } from "./result.js";
import { runScript, type ScriptOutcome } from "./run-script.js";
import { scriptSummary } from "./summary.js";

export type { ExecuteCodeDetails, ExecuteCodeProgress } from "./details.js";

const executeCodeParams = z.lazy(() => z.object({
  code: z
    .string()
    .describe("Python 3 code; import tools from hermes_tools and print the result to stdout."),
}));

export type ExecuteCodeArgs = z.infer<typeof executeCodeParams>;

const DESCRIPTION = [
  "Run a Python 3 script that calls tools programmatically, for 3+ tool calls with logic between them (loops over",
  "files, filtering large outputs, branching). Only what it prints to stdout comes back to you. Use normal calls for",
  "single calls or results you need in full.\n",
  "`from hermes_tools import ...` (those this session has): read_file(path, offset=None, limit=None),",
  "write_file(path, content), patch(path, old_string, new_string), search_files(pattern, target=\"content\"|\"files\",",
  "path=None, file_glob=None), terminal(command, timeout=None, workdir=None), web_search(query), web_extract(urls);",
  'each returns the tool\'s JSON result as a dict (failure: {"error": ...}), checked and approved like a direct call.',
  "Helpers: json_parse, shell_quote, retry.\n",
  "Limits: 5 minutes, 50 tool calls; stdout over 50,000 chars keeps its start and end. Runs in the project directory,",
  "in the terminal's sandbox, with the python3 on PATH.",
].join(" ");

/** Builds the tool; `detect` replaces the dangerous-command detector in tests. */
export function createExecuteCodeTool(options: { detect?: DangerDetector } = {}): AnyTool {
  return defineTool({
    name: "execute_code",
    description: DESCRIPTION,
    kind: "execute",
    mutating: true,
    params: executeCodeParams,
    describe: (args) => ({ title: `execute_code: ${scriptSummary(args.code)}`, locations: [] }),
    execute: (args, ctx) => executeCode(args, ctx, options.detect),
  });
}

export const executeCodeTool = createExecuteCodeTool();

/** Used when no agent provides `innerTools` (the script gets no tool functions). */
const NO_TOOLS: InnerToolsPort = {
  names: () => [],
  invoke: async () => ({ content: "No tools can be called from this script.", isError: true }),
};

/**
 * Runs one script: confinement as for a command (`confine`), then the command guard on the code
 * (and, outside a sandbox, the user's approval of the script as a whole), then python3 in the
 * project folder with the generated `hermes_tools` module in a private folder of the agent's temp
 * (read-only in every sandbox) and the channel on fds 3 and 4 (the launcher closes any other
 * descriptor the interpreter inherited, see `scriptLauncher`). Inner calls go through
 * `ctx.ports.innerTools` and are reported as progress lines; only stdout (and stderr on failure)
 * reaches the model. Cancellation kills the script's process group and cancels its inner calls.
 * Never throws: refusals, timeouts, cancellation and start failures are results with `isError`;
 * a script that fails on its own is a plain result with status "error".
 */
export async function executeCode(args: ExecuteCodeArgs, ctx: ToolContext<ExecuteCodeProgress>, detect?: DangerDetector): Promise<ToolResult<ExecuteCodeDetails>> {
  const started = performance.now();
  const { code } = args;
  if (!code.trim()) return refusal("No code provided. execute_code needs Python source in 'code'; use terminal for shell commands.");
  const port = ctx.ports.innerTools ?? NO_TOOLS;
  const tools = scriptTools(port.names());
  const limits = scriptLimits(ctx.config);
  const confinement = await confine(ctx);
  if (confinement.kind === "refused") return refusal(confinement.message, { sandbox: "unavailable" });
  const sandboxed = confinement.kind === "sandboxed";
  const sandbox: NonNullable<ExecuteCodeDetails["sandbox"]> = sandboxed ? confinement.plan.mode : confinement.reason;
  const verdict = await guardScript(code, ctx, { sandboxed, ...(detect ? { detect } : {}) });
  if (verdict.action === "refuse") return refusal(verdict.message, { sandbox });
  const approval = verdict.approval;
  if (ctx.signal.aborted) return refusal("Script not run: the turn was cancelled.", { sandbox, status: "interrupted", exitCode: 130 });
  const notice = confinement.kind === "unconfined" ? confinement.notice : undefined;
  if (notice) ctx.ports.notifyUser?.(notice);

  const dir = mkdtempSync(join(agentTempRoot(), "exec-"));
  let outcome: ScriptOutcome;
  let server: ChannelServer | undefined;
  let gitNotes: string[] = [];
  const listed = (): InnerCall[] => (server?.calls ?? []).slice(0, MAX_LISTED_CALLS).map((call) => ({ ...call }));
  const throttle = new ProgressThrottle(() => ctx.reportProgress?.({ running: true, calls: listed() }));
  try {
    const script = join(dir, "script.py");
    writeFileSync(join(dir, "hermes_tools.py"), hermesToolsModule(tools));
    writeFileSync(join(dir, LAUNCHER_FILE), scriptLauncher());
    writeFileSync(script, code);
    const spec: ExecSpec = { file: "python3", args: ["-B", join(dir, LAUNCHER_FILE), script], cwd: ctx.cwd };
    const gitBefore = sandboxed && confinement.plan.mode === "workspace-write" ? snapshotGit(ctx.cwd) : undefined;
    outcome = await runScript({
      spec: sandboxed ? confinement.wrap(spec) : spec,
      env: scriptEnv(ctx.sessionId, dir),
      timeoutMs: limits.timeoutSeconds * 1000,
      signal: ctx.signal,
      stdoutCap: limits.stdoutCap,
      stderrCap: limits.stderrCap,
      serve: async (requests, responses, stop) => {
        server = serveChannel(requests, responses, { port, allowed: tools, maxCalls: limits.maxToolCalls, state: ctx.state, stop, onChange: () => throttle.poke() });
        await server.settled();
      },
    });
    gitNotes = gitBefore ? repairGit(ctx.cwd, gitBefore) : [];
  } finally {
    throttle.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const report = scriptReport({
    outcome,
    toolCallsMade: server?.made ?? 0,
    durationSeconds: Math.round((performance.now() - started) / 10) / 100,
    timeoutSeconds: limits.timeoutSeconds,
    available: tools,
    ...(sandboxed ? withHint(sandboxDenialHint(outcome.stderr, confinement.plan, outcome.exitCode)) : {}),
  });
  const notes = [...gitNotes, ...(notice ? [notice] : [])];
  const body = { ...report.body, ...(notes.length ? { notes } : {}), ...(approval ? { approval: approvalNote(approval) } : {}) };
  const details: ExecuteCodeDetails = {
    status: report.status,
    exitCode: outcome.timedOut ? 124 : outcome.interrupted ? 130 : outcome.exitCode,
    output: report.output,
    calls: listed(),
    toolCallsMade: server?.made ?? 0,
    sandbox,
    ...(report.error ? { error: report.error } : {}),
    ...(approval ? { approval } : {}),
  };
  const failed = outcome.spawnError !== undefined || report.status === "timeout" || report.status === "interrupted";
  return { content: JSON.stringify(body), details, ...(failed ? { isError: true } : {}) };
}

/**
 * The interpreter's environment: the terminal's (no agent credentials) plus the module's folder,
 * UTF-8 I/O, no bytecode files, and unbuffered output (what a killed script printed still arrives).
 */
function scriptEnv(sessionId: string, moduleDir: string): NodeJS.ProcessEnv {
  const env = childEnv(sessionId);
  return {
    ...env,
    PYTHONPATH: env.PYTHONPATH ? `${moduleDir}${delimiter}${env.PYTHONPATH}` : moduleDir,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
    PYTHONUTF8: "1",
    PYTHONUNBUFFERED: "1",
  };
}

function withHint(hint: string | undefined): { sandboxHint?: string } {
  return hint ? { sandboxHint: hint } : {};
}

function refusal(error: string, extra: Partial<ExecuteCodeDetails> = {}): ToolResult<ExecuteCodeDetails> {
  const details: ExecuteCodeDetails = { status: "error", exitCode: -1, output: "", calls: [], toolCallsMade: 0, error, ...extra };
  const body = { status: details.status, error, tool_calls_made: 0, duration_seconds: 0 };
  return { content: JSON.stringify(body), details, isError: true };
}

function approvalNote(approval: NonNullable<ExecuteCodeDetails["approval"]>): string {
  const by = approval.via === "user" ? "approved by the user" : "allowed by command_allowlist";
  return `${approval.description}: ${by}`;
}
