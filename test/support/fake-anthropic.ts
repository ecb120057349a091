/**
 * A scripted Anthropic Messages API server on 127.0.0.1 for tests: real HTTP, real SSE, the event
 * sequence Anthropic streams (`message_start`, `content_block_start` / `_delta` / `_stop`, `ping`,
 * `message_delta`, `message_stop`, and `error` events mid-stream).
 *
 * Each `POST /v1/messages` is first checked against the Messages API's structural rules (roles
 * alternate starting with `user`, no empty content, every `tool_use` answered by a `tool_result` in
 * the next user message and no stray results, at most 4 `cache_control` breakpoints); a violation is
 * answered `400 invalid_request_error` naming it, without consuming a step. Otherwise the next step
 * is answered, streamed when the request has `stream: true`. An exhausted script answers HTTP 500.
 * `GET /v1/models` answers the configured model list (or never answers, with `stallModels`).
 * `{ hang: "headers" }` never answers at all; `{ endless: true }` streams one text block forever.
 * Every request is recorded before it is answered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sleep } from "../../src/shared/abort.js";
import { fillerText, hangUntilClosed, streamForever, type EndlessStep, type HangStep } from "./fake-edges.js";
import { readBody, sendJson } from "./http-json.js";

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface FakeToolUse {
  /** Generated when absent. */
  id?: string;
  name: string;
  /** An object is JSON-encoded and streamed in fragments; a string is streamed verbatim. */
  input: Record<string, unknown> | string;
}

/** A model answer: optional thinking, optional text, optional tool uses, in that block order. */
export interface AnswerStep {
  thinking?: string;
  text?: string;
  /** Exact text pieces; their join is the text. */
  chunks?: string[];
  tool_use?: FakeToolUse[];
  /** Default `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: string;
  usage?: Partial<AnthropicUsage>;
  /** Pause before every event after `message_start`. */
  delayMs?: number;
  /** Stop after this many content events (deltas) and drop the connection. */
  cutAfterDeltas?: number;
  /** After the content, send this `event: error` instead of `message_delta` / `message_stop`. */
  streamError?: { type: string; message: string };
}

/** A plain HTTP error; `body` defaults to Anthropic's error JSON for `errorType`. */
export interface HttpErrorStep {
  status: number;
  errorType?: string;
  message?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Sends the response headers and then nothing, until the client or the server gives up. */
export interface StallStep {
  stall: true;
}

export type AnthropicStep = AnswerStep | HttpErrorStep | StallStep | HangStep | EndlessStep;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke into arbitrary request shapes
  body: any;
}

export interface FakeAnthropicOptions {
  /** Entries of `GET /v1/models` (`data`); default one `claude-fake` entry. */
  models?: Record<string, unknown>[];
  /** `GET /v1/models` never answers. */
  stallModels?: boolean;
}

export interface FakeAnthropic {
  /** e.g. `http://127.0.0.1:PORT` (the SDK appends `/v1/messages`). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** The recorded `POST /v1/messages` bodies, in order. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
  messageBodies(): any[];
  push(...steps: AnthropicStep[]): void;
  remaining(): number;
  /** Requests whose connection is still open (0 once every client has disconnected). */
  inFlight(): number;
  close(): Promise<void>;
}

interface Reply {
  res: ServerResponse;
  signal: AbortSignal;
  model: string;
  id: string;
}

function send(reply: Reply, event: string, data: Record<string, unknown>): boolean {
  if (reply.signal.aborted || reply.res.destroyed) return false;
  reply.res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  return true;
}

function pieces(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

/** Content blocks as (start block, deltas) pairs, in stream order. */
function blocks(step: AnswerStep): { start: Record<string, unknown>; deltas: Record<string, unknown>[] }[] {
  const result: { start: Record<string, unknown>; deltas: Record<string, unknown>[] }[] = [];
  if (step.thinking !== undefined) {
    result.push({
      start: { type: "thinking", thinking: "", signature: "" },
      deltas: [
        ...pieces(step.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: "c2lnbmF0dXJl" },
      ],
    });
  }
  const text = step.chunks ? step.chunks.join("") : step.text;
  if (text !== undefined) {
    const parts = step.chunks ?? pieces(text);
    result.push({ start: { type: "text", text: "" }, deltas: parts.map((part) => ({ type: "text_delta", text: part })) });
  }
  step.tool_use?.forEach((call, index) => {
    const json = typeof call.input === "string" ? call.input : JSON.stringify(call.input);
    const id = call.id ?? `toolu_fake_${index}_${Math.random().toString(36).slice(2, 10)}`;
    result.push({
      start: { type: "tool_use", id, name: call.name, input: {} },
      deltas: [{ type: "input_json_delta", partial_json: "" }, ...pieces(json, 7).map((partial_json) => ({ type: "input_json_delta", partial_json }))],
    });
  });
  return result;
}

async function writeAnswer(reply: Reply, step: AnswerStep, stream: boolean): Promise<void> {
  const usage: AnthropicUsage = {
    input_tokens: step.usage?.input_tokens ?? 10,
    output_tokens: step.usage?.output_tokens ?? 5,
    cache_read_input_tokens: step.usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: step.usage?.cache_creation_input_tokens ?? 0,
  };
  const stopReason = step.stopReason ?? (step.tool_use?.length ? "tool_use" : "end_turn");
  const content = blocks(step);
  if (!stream) {
    const message = { id: reply.id, type: "message", role: "assistant", model: reply.model, stop_reason: stopReason, stop_sequence: null, usage, content: [] };
    reply.res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
    return;
  }
  reply.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const pause = (): Promise<void> => (step.delayMs ? sleep(step.delayMs, reply.signal) : Promise.resolve());
  const start = { id: reply.id, type: "message", role: "assistant", model: reply.model, content: [], stop_reason: null, stop_sequence: null };
  send(reply, "message_start", { message: { ...start, usage: { ...usage, output_tokens: 1 } } });
  send(reply, "ping", {});
  let sent = 0;
  for (const [index, block] of content.entries()) {
    await pause();
    send(reply, "content_block_start", { index, content_block: block.start });
    for (const delta of block.deltas) {
      if (step.cutAfterDeltas !== undefined && sent >= step.cutAfterDeltas) {
        reply.res.destroy();
        return;
      }
      await pause();
      if (!send(reply, "content_block_delta", { index, delta })) return;
      sent += 1;
    }
    send(reply, "content_block_stop", { index });
  }
  if (step.streamError) {
    send(reply, "error", { error: step.streamError });
    reply.res.end();
    return;
  }
  await pause();
  send(reply, "message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  send(reply, "message_stop", {});
  reply.res.end();
}

/** `message_start`, one text block start, then text deltas without end. */
function writeEndless(res: ServerResponse, signal: AbortSignal, model: string, step: EndlessStep): Promise<void> {
  const text = fillerText(step.chunkChars ?? 4_000);
  const start = { id: "msg_fake_endless", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } };
  const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return streamForever(res, signal, (i) =>
    i === 0
      ? frame("message_start", { message: start }) + frame("content_block_start", { index: 0, content_block: { type: "text", text: "" } })
      : frame("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
  );
}

function errorBody(type: string, message: string): Record<string, unknown> {
  return { type: "error", error: { type, message } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
type Json = any;

/** The first structural rule of the Messages API that `body` breaks, or undefined. */
export function messagesRequestProblem(body: Json): string | undefined {
  if (typeof body?.model !== "string" || !body.model) return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  const messages: Json[] = Array.isArray(body.messages) ? body.messages : [];
  if (messages.length === 0) return "messages: at least one message is required";
  let breakpoints = 0;
  const countCache = (block: Json): void => {
    if (block && typeof block === "object" && block.cache_control) breakpoints += 1;
  };
  if (Array.isArray(body.system)) body.system.forEach(countCache);
  for (const tool of body.tools ?? []) countCache(tool);
  let pendingToolUses: string[] = [];
  for (const [index, message] of messages.entries()) {
    const expected = index % 2 === 0 ? "user" : "assistant";
    if (message.role !== expected) return `messages.${index}.role: roles must alternate between "user" and "assistant", starting with "user"`;
    const content: Json[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(content) || content.length === 0) return `messages.${index}: all messages must have non-empty content`;
    const results = content.filter((block) => block.type === "tool_result").map((block) => block.tool_use_id as string);
    if (message.role === "user") {
      const missing = pendingToolUses.filter((id) => !results.includes(id));
      if (missing.length > 0) return `messages.${index}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(", ")}`;
      const stray = results.filter((id) => !pendingToolUses.includes(id));
      if (stray.length > 0) return `messages.${index}: unexpected tool_use_id found in tool_result blocks: ${stray.join(", ")}`;
      const firstOther = content.findIndex((block) => block.type !== "tool_result");
      if (firstOther !== -1 && content.slice(firstOther).some((block) => block.type === "tool_result")) {
        return `messages.${index}: tool_result blocks must come first in the user message`;
      }
      pendingToolUses = [];
    } else {
      pendingToolUses = content.filter((block) => block.type === "tool_use").map((block) => block.id as string);
    }
    for (const block of content) {
      countCache(block);
      if (block.type === "text" && (typeof block.text !== "string" || block.text.trim() === "")) {
        return `messages.${index}: text content blocks must contain non-whitespace text`;
      }
    }
  }
  if (breakpoints > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  return undefined;
}

/** Starts the server on a random loopback port. Steps may be given now or later with `push`. */
export async function startFakeAnthropic(steps: AnthropicStep[] = [], options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const script = [...steps];
  const requests: RecordedRequest[] = [];
  const active = new Set<AbortController>();
  let count = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = (await readBody(req)) as Json;
    const path = req.url ?? "/";
    requests.push({ method: req.method ?? "GET", path, headers: { ...req.headers }, body });
    const route = path.split("?")[0];
    const controller = new AbortController();
    active.add(controller);
    res.on("close", () => {
      controller.abort();
      active.delete(controller);
    });
    if (req.method === "GET" && route === "/v1/models") {
      if (options.stallModels) return;
      const data = options.models ?? [{ type: "model", id: "claude-fake", display_name: "Claude Fake", created_at: "2025-01-01T00:00:00Z" }];
      return sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    }
    if (req.method !== "POST" || route !== "/v1/messages") return sendJson(res, 404, errorBody("not_found_error", `no route ${req.method} ${route}`));
    const problem = messagesRequestProblem(body);
    if (problem) return sendJson(res, 400, errorBody("invalid_request_error", problem));
    const step = script.shift();
    if (!step) return sendJson(res, 500, errorBody("api_error", "fake-anthropic: script exhausted"));
    if ("stall" in step) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      return;
    }
    if ("hang" in step) return hangUntilClosed(controller.signal);
    if ("endless" in step) return writeEndless(res, controller.signal, String(body.model), step);
    if ("status" in step) {
      const payload = step.body ?? errorBody(step.errorType ?? "api_error", step.message ?? `fake-anthropic: HTTP ${step.status}`);
      return sendJson(res, step.status, payload, step.headers);
    }
    count += 1;
    const reply: Reply = { res, signal: controller.signal, model: String(body.model), id: `msg_fake_${count}` };
    try {
      await writeAnswer(reply, step, body.stream === true);
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody("api_error", `fake-anthropic: ${String(error)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    messageBodies: () => requests.filter((request) => request.method === "POST" && request.path.startsWith("/v1/messages")).map((request) => request.body),
    push: (...more) => void script.push(...more),
    remaining: () => script.length,
    inFlight: () => active.size,
    close: async () => {
      for (const controller of active) controller.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
