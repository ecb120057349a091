import type { Readable, Writable } from "node:stream";
import { resetReadDedup } from "../file-tracker/file-tracker.js";
import type { InnerToolsPort } from "../ports.js";
import type { ToolSessionState } from "../session-state.js";
import type { InnerCall } from "./details.js";
import { callSummary } from "./summary.js";

/** Longest request line taken from a script; a longer one is answered with an error and dropped. */
const MAX_REQUEST_CHARS = 10_000_000;

/** Terminal arguments a script cannot use (Hermes drops `background`; leaving the sandbox is only for direct calls). */
const TERMINAL_BLOCKED = ["background", "sandbox", "reason"];

export interface ChannelOptions {
  port: InnerToolsPort;
  /** Tools the script may call (the generated module's). */
  allowed: readonly string[];
  /** Calls allowed per run; refused calls (not allowed, over the limit, malformed) do not count. */
  maxCalls: number;
  /** Session state, for read_file's dedup (see `serveChannel`). */
  state: ToolSessionState;
  /** Fires when the run stops (script ended, timeout, cancel): calls in flight are cancelled, later requests ignored. */
  stop: AbortSignal;
  /** Called whenever the list of calls changes (a call starts or ends). Must not throw. */
  onChange?: (calls: readonly InnerCall[]) => void;
}

export interface ChannelServer {
  /** The calls made so far, in order (refused requests included, as errors). */
  readonly calls: readonly InnerCall[];
  /** Calls that were dispatched to a tool (Hermes' `tool_calls_made`). */
  readonly made: number;
  /** Resolves once every request received has been answered or abandoned (after `stop`). Never rejects. */
  settled(): Promise<void>;
}

/**
 * Serves a script's requests: reads `{"id", "tool", "args"}` lines from `requests`, runs each
 * through `port.invoke` one at a time, in order, and writes `{"id", "result"}` to `responses`. The
 * result is the tool's JSON parsed; a failure whose text is not a JSON object becomes
 * `{"error": text}`; other text stays a string. Every read_file from a script reads afresh (its
 * dedup would answer "unchanged" to content the script never saw), and after a run that read
 * files a direct read_file does too (the model never saw what the script read). Write errors on
 * `responses` (the script is gone) are ignored. Never throws.
 */
export function serveChannel(requests: Readable, responses: Writable, options: ChannelOptions): ChannelServer {
  const calls: InnerCall[] = [];
  let made = 0;
  let chain = Promise.resolve();
  let buffered = "";
  let dropping = false;
  let readFiles = false;
  const allowed = new Set(options.allowed.filter((name) => options.port.names().includes(name)));
  const changed = (): void => options.onChange?.(calls);

  responses.on("error", () => {});
  requests.on("error", () => {});
  requests.setEncoding("utf8");
  requests.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (dropping) dropping = false;
      else if (line.trim()) chain = chain.then(() => answer(line));
    }
    if (buffered.length > MAX_REQUEST_CHARS) {
      buffered = "";
      dropping = true;
      chain = chain.then(() => reply(null, { error: `Request too large (over ${MAX_REQUEST_CHARS} characters); nothing was run.` }));
    }
  });

  const reply = (id: unknown, result: unknown): void => {
    if (options.stop.aborted || responses.destroyed) return;
    responses.write(`${JSON.stringify({ id: typeof id === "number" ? id : null, result })}\n`);
  };

  async function answer(line: string): Promise<void> {
    if (options.stop.aborted) return;
    const request = parseRequest(line);
    if ("error" in request) return reply(null, { error: request.error });
    const { id, tool } = request;
    const refuse = (error: string): void => {
      calls.push({ tool, summary: callSummary(tool, request.args), status: "error" });
      changed();
      reply(id, { error });
    };
    if (!allowed.has(tool)) return refuse(`Tool '${tool}' is not available in execute_code. Available: ${[...allowed].join(", ")}`);
    if (made >= options.maxCalls) return refuse(`Tool call limit reached (${options.maxCalls}). No more tool calls allowed in this execution.`);
    const args = { ...request.args };
    if (tool === "terminal") for (const key of TERMINAL_BLOCKED) delete args[key];
    if (tool === "read_file") {
      resetReadDedup(options.state);
      readFiles = true;
    }
    made += 1;
    const entry: InnerCall = { tool, summary: callSummary(tool, args), status: "running" };
    calls.push(entry);
    changed();
    const result = await options.port.invoke(tool, args, options.stop);
    entry.status = result.isError ? "error" : "ok";
    changed();
    reply(id, resultValue(result.content, result.isError));
  }

  return {
    get calls() {
      return calls;
    },
    get made() {
      return made;
    },
    async settled() {
      await chain;
      if (readFiles) resetReadDedup(options.state);
    },
  };
}

type ParsedRequest = { id: unknown; tool: string; args: Record<string, unknown> } | { error: string };

function parseRequest(line: string): ParsedRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { error: `Invalid request: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isRecord(value) || typeof value.tool !== "string") return { error: 'Invalid request: expected {"id", "tool", "args"}' };
  const args = value.args ?? {};
  if (!isRecord(args)) return { error: `Invalid request: the arguments of ${value.tool} must be an object` };
  return { id: value.id, tool: value.tool, args };
}

/** What the script gets back for a tool's text: its JSON, `{error}` for a plain-text failure, else the text. */
export function resultValue(content: string, isError: boolean): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return isError ? { error: content } : content;
  }
  return isError && !isRecord(parsed) ? { error: content } : parsed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
