import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "../types.js";
import { guardCommand } from "../terminal/guard.js";
import { truncateMiddle } from "./output.js";
import { PROCESS_ACTIONS, type ProcessAction, type ProcessDetails, type ProcessInfo } from "./details.js";
import { processRegistry, type BackgroundProcess } from "./registry.js";

export { PROCESS_ACTIONS, type ProcessAction, type ProcessDetails } from "./details.js";

/** Lines `log` returns when no limit is given (the last ones, unless an offset is given). */
export const LOG_DEFAULT_LIMIT = 200;
/** Seconds `wait` waits when no timeout is given. */
export const WAIT_DEFAULT_SECONDS = 30;

const processParams = z.lazy(() => z.object({
  action: z.enum(PROCESS_ACTIONS).describe(
    "list: all background processes; poll: status and new output since the last poll; log: output lines (offset/limit); " +
      "wait: block until it exits or timeout; kill: stop it and its children; write: raw data to stdin; " +
      "submit: data plus a newline; close: close stdin (EOF)",
  ),
  session_id: z.string().min(1).optional().describe("Process id from terminal(background=true); required except for list"),
  data: z.string().optional().describe("Text for write / submit"),
  timeout: z.coerce.number().positive().optional().describe(`Seconds for wait (default ${WAIT_DEFAULT_SECONDS}, max 600)`),
  offset: z.coerce.number().int().min(0).optional().describe("log: first line, 0-based (default: the last lines)"),
  limit: z.coerce.number().int().min(1).optional().describe(`log: lines (default ${LOG_DEFAULT_LIMIT})`),
}));

export type ProcessArgs = z.infer<typeof processParams>;

const DESCRIPTION = [
  "Manage background processes started with terminal(background=true): list, poll, read the log, wait for exit,",
  "kill (the whole process tree), send stdin. Output keeps the last 200,000 characters per process;",
  "background processes end with the session.",
].join(" ");

export const processTool = defineTool({
  name: "process",
  description: DESCRIPTION,
  kind: "execute",
  mutating: true,
  params: processParams,
  describe: (args) => ({
    title: args.session_id ? `process ${args.action}: ${args.session_id}` : `process ${args.action}`,
    locations: [],
  }),
  execute: executeProcess,
});

/** Runs one process action. Never throws; unknown ids and closed stdin are `isError` results. */
export async function executeProcess(args: ProcessArgs, ctx: ToolContext): Promise<ToolResult<ProcessDetails>> {
  const registry = processRegistry(ctx.state);
  const { action } = args;
  if (action === "list") {
    const processes = registry.list().map((record) => record.info());
    return result({ processes }, { action, processes });
  }
  if (!args.session_id) return failure(action, `session_id is required for action "${action}"`);
  const record = registry.get(args.session_id);
  if (!record) {
    return failure(action, `No background process "${args.session_id}" in this session; use process(action="list") to see them.`);
  }
  switch (action) {
    case "poll":
      return pollResult(action, record, ctx);
    case "wait":
      return waitFor(record, args, ctx);
    case "log":
      return logResult(record, args, ctx);
    case "kill":
      return kill(record);
    case "write":
    case "submit": {
      // Text sent to a background process may be a command line for a shell it runs: it gets the
      // same danger check and approval as a terminal command (fail closed for anything flagged).
      const verdict = await guardCommand(args.data ?? "", ctx, undefined, record.cwd, { sandboxed: record.sandboxed });
      if (verdict.action === "refuse") return failure(action, verdict.message, record.info());
      return write(action, record, args.data);
    }
    case "close":
      if (!record.closeStdin()) return failure(action, stdinClosedMessage(record), record.info());
      return result({ session_id: record.id, status: record.status, stdin: "closed" }, { action, process: record.info() });
  }
}

/** New output since the last poll/wait, advancing the cursor. */
function pollResult(action: "poll" | "wait", record: BackgroundProcess, ctx: ToolContext, extra: { timedOut?: boolean; interrupted?: boolean } = {}): ToolResult<ProcessDetails> {
  const { text, lost } = record.output.readFrom(record.pollCursor);
  record.pollCursor = record.output.end;
  const output = withLostNote(truncateMiddle(text, ctx.config.terminal.output_cap), lost);
  const info = record.info();
  const body: Record<string, unknown> = {
    session_id: record.id,
    status: info.status,
    exit_code: info.exit_code,
    pid: info.pid,
    runtime_seconds: info.runtime_seconds,
    output,
  };
  if (extra.timedOut) body.note = "still running after the wait timeout; wait again, poll later, or kill it";
  if (extra.interrupted) body.note = "wait interrupted: the turn was cancelled (the process keeps running)";
  return result(body, { action, process: info, output, lostChars: lost, ...extra });
}

async function waitFor(record: BackgroundProcess, args: ProcessArgs, ctx: ToolContext): Promise<ToolResult<ProcessDetails>> {
  const seconds = Math.min(args.timeout ?? WAIT_DEFAULT_SECONDS, ctx.config.terminal.max_timeout);
  const outcome = await waitUntilDone(record, seconds * 1000, ctx.signal);
  return pollResult("wait", record, ctx, outcome === "timeout" ? { timedOut: true } : outcome === "aborted" ? { interrupted: true } : {});
}

/** Resolves when the process ended ("done"), the time ran out, or the signal fired. */
function waitUntilDone(record: BackgroundProcess, ms: number, signal: AbortSignal): Promise<"done" | "timeout" | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    const finish = (outcome: "done" | "timeout" | "aborted"): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => finish("aborted");
    const timer = setTimeout(() => finish("timeout"), Math.min(ms, 2_147_483_647));
    signal.addEventListener("abort", onAbort, { once: true });
    void record.done.then(() => finish("done"));
  });
}

function logResult(record: BackgroundProcess, args: ProcessArgs, ctx: ToolContext): ToolResult<ProcessDetails> {
  const { text, lost } = record.output.readFrom(0);
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const limit = args.limit ?? LOG_DEFAULT_LIMIT;
  const offset = args.offset ?? Math.max(0, lines.length - limit);
  const selected = lines.slice(offset, offset + limit);
  const output = withLostNote(truncateMiddle(selected.join("\n"), ctx.config.terminal.output_cap), lost);
  const info = record.info();
  const body: Record<string, unknown> = {
    session_id: record.id,
    status: info.status,
    exit_code: info.exit_code,
    total_lines: lines.length,
    offset,
    lines_returned: selected.length,
    output,
  };
  if (offset + selected.length < lines.length) body.hint = `more lines follow; use offset=${offset + selected.length}`;
  return result(body, { action: "log", process: info, output, offset, limit, totalLines: lines.length, lostChars: lost });
}

async function kill(record: BackgroundProcess): Promise<ToolResult<ProcessDetails>> {
  const alreadyEnded = !record.running;
  await record.kill();
  const info = record.info();
  const body: Record<string, unknown> = { session_id: record.id, status: info.status, exit_code: info.exit_code };
  if (alreadyEnded) body.note = "the process had already ended";
  return result(body, { action: "kill", process: info, alreadyEnded });
}

async function write(action: "write" | "submit", record: BackgroundProcess, data: string | undefined): Promise<ToolResult<ProcessDetails>> {
  if (data === undefined && action === "write") return failure(action, 'data is required for action "write"', record.info());
  const text = action === "submit" ? `${data ?? ""}\n` : (data ?? "");
  if (!record.stdinOpen) return failure(action, stdinClosedMessage(record), record.info());
  if (!(await record.write(text))) return failure(action, stdinClosedMessage(record), record.info());
  const body = { session_id: record.id, status: record.status, chars_written: text.length };
  return result(body, { action, process: record.info(), chars: text.length });
}

function stdinClosedMessage(record: BackgroundProcess): string {
  return record.running
    ? `stdin of ${record.id} is already closed`
    : `process ${record.id} has ended (exit code ${record.exitCode}); its stdin is closed`;
}

function withLostNote(output: string, lost: number): string {
  if (!lost) return output;
  return `[${lost} earlier chars were dropped from the 200,000-char output buffer]\n${output}`;
}

function result(body: Record<string, unknown>, details: ProcessDetails): ToolResult<ProcessDetails> {
  return { content: JSON.stringify(body), details };
}

function failure(action: ProcessAction, error: string, process?: ProcessInfo): ToolResult<ProcessDetails> {
  return {
    content: JSON.stringify({ error }),
    details: { action, error, ...(process ? { process } : {}) } satisfies ProcessDetails,
    isError: true,
  };
}
