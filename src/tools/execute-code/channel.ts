import type { Readable, Writable } from "node:stream";
import { resetReadDedup } from "../file-tracker/file-tracker.js";
import type { InnerToolsPort } from "../ports.js";
import type { ToolSessionState } from "../session-state.js";
import type { InnerCall } from "./details.js";
import { callSummary } from "./summary.js";

/** Longest request line taken from a script; a longer one is answered with an error and dropped. */
export const MAX_REQUEST_CHARS = 10_000_000;
/** Lines received but not answered yet beyond which the script's fd 3 is no longer read. */
const MAX_QUEUED_LINES = 64;
/** Refused requests (tool not allowed, over the limit) kept in the list of calls. */
export const MAX_LISTED_REFUSALS = 20;
/** Marks a request line that was too long in the queue. */
const OVERSIZED = Symbol("oversized");

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
 *
 * Bounded whatever the script does: a line past `MAX_REQUEST_CHARS` is answered with one error and
 * skipped to its end; at most `MAX_QUEUED_LINES` lines wait (beyond that `requests` is paused, so
 * the script's writes block), and no request is answered while the script has not read the
 * previous answers (`responses` needs draining): a script that writes without reading fd 4
 * stalls itself, not the agent. Refused requests are listed up to `MAX_LISTED_REFUSALS`.
 */
export function serveChannel(requests: Readable, responses: Writable, options: ChannelOptions): ChannelServer {
  const calls: InnerCall[] = [];
  let made = 0;
  let refusals = 0;
  let partial = "";
  let dropping = false;
  let readFiles = false;
  /** Lines received and not answered yet; `OVERSIZED` stands for a line that was too long. */
  const queue: Array<string | typeof OVERSIZED> = [];
  let head = 0;
  const waiting = (): number => queue.length - head;
  const next = (): string | typeof OVERSIZED | undefined => {
    const item = queue[head];
    if (item === undefined) return undefined;
    head += 1;
    if (head === queue.length || head > 1024) {
      queue.splice(0, head);
      head = 0;
    }
    return item;
  };
  let pumping: Promise<void> | undefined;
  const allowed = new Set(options.allowed.filter((name) => options.port.names().includes(name)));
  const changed = (): void => options.onChange?.(calls);

  const enqueue = (item: string | typeof OVERSIZED): void => {
    if (options.stop.aborted) return;
    queue.push(item);
    if (waiting() >= MAX_QUEUED_LINES) requests.pause();
    pumping ??= pump().finally(() => (pumping = undefined));
  };

  responses.on("error", () => {});
  requests.on("error", () => {});
  requests.setEncoding("utf8");
  requests.on("data", (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
      const piece = chunk.slice(start, end);
      start = end + 1;
      if (dropping) dropping = false;
      else {
        const line = partial + piece;
        if (line.length > MAX_REQUEST_CHARS) enqueue(OVERSIZED);
        else if (line.trim()) enqueue(line);
      }
      partial = "";
    }
    if (dropping) return;
    partial += chunk.slice(start);
    if (partial.length > MAX_REQUEST_CHARS) {
      partial = "";
      dropping = true;
      enqueue(OVERSIZED);
    }
  });

  /** Answers the queued lines in order; waits while the script has answers it has not read. */
  async function pump(): Promise<void> {
    for (let item = next(); item !== undefined && !options.stop.aborted; item = next()) {
      if (waiting() < MAX_QUEUED_LINES && requests.isPaused() && !requests.destroyed) requests.resume();
      if (item === OVERSIZED) reply(null, { error: `Request too large (over ${MAX_REQUEST_CHARS} characters); nothing was run.` });
      else await answer(item);
      if (responses.writableNeedDrain && !responses.destroyed) await drained(responses, options.stop);
    }
    queue.length = 0;
    head = 0;
  }

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
      refusals += 1;
      if (refusals <= MAX_LISTED_REFUSALS) {
        calls.push({ tool, summary: callSummary(tool, request.args), status: "error" });
        changed();
      }
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
      while (pumping) await pumping;
      if (readFiles) resetReadDedup(options.state);
    },
  };
}

/** Resolves once `stream` has drained, or when `stop` fires. Never rejects. */
function drained(stream: Writable, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off("drain", done);
      stream.off("close", done);
      stop.removeEventListener("abort", done);
      resolve();
    };
    if (stop.aborted) return resolve();
    stream.on("drain", done);
    stream.on("close", done);
    stop.addEventListener("abort", done, { once: true });
  });
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
