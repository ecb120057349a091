/**
 * A scripted Anthropic Messages API server on 127.0.0.1 for tests: real HTTP, real SSE, the event
 * sequence Anthropic streams (`message_start`, `content_block_start` / `_delta` / `_stop`, `ping`,
 * `message_delta`, `message_stop`, and `error` events mid-stream).
 *
 * Each `POST /v1/messages` is first checked against the Messages API's structural rules (roles
 * alternate starting with `user`, no empty content, every `tool_use` answered by a `tool_result` in
 * the next user message and no stray results, at most 4 `cache_control` breakpoints) and those of
 * extended thinking (see `messagesRequestProblem`: signatures checked, thinking blocks required
 * back while tool use goes on); a violation is answered `400 invalid_request_error` naming it,
 * without consuming a step. Otherwise the next step
 * is answered, streamed when the request has `stream: true`. An exhausted script answers HTTP 500.
 * `GET /v1/models` answers the configured model list (or never answers, with `stallModels`).
 * `{ hang: "headers" }` never answers at all; `{ endless: true }` streams one text block forever.
 * Every request is recorded before it is answered.
 */
import { createHash } from "node:crypto";
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

/** A model answer: optional thinking, optional redacted thinking, optional text, optional tool uses, in that block order. */
export interface AnswerStep {
  /** A thinking block, streamed as `thinking_delta`s then one `signature_delta` (`fakeSignature` of the text). */
  thinking?: string;
  /** Instead of `fakeSignature(thinking)`; `""` streams no `signature_delta` (an unsigned block). */
  thinkingSignature?: string;
  /** A `redacted_thinking` block with this `data`, after the thinking block. */
  redactedThinking?: string;
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
    const signature = step.thinkingSignature ?? fakeSignature(step.thinking);
    result.push({
      start: { type: "thinking", thinking: "", signature: "" },
      deltas: [...pieces(step.thinking).map((thinking) => ({ type: "thinking_delta", thinking })), ...(signature ? [{ type: "signature_delta", signature }] : [])],
    });
  }
  if (step.redactedThinking !== undefined) result.push({ start: { type: "redacted_thinking", data: step.redactedThinking }, deltas: [] });
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

/**
 * The signature this server gives a thinking block with `thinking` as its text; a block sent back
 * with any other signature (or changed text) is refused, as the real API refuses a modified block.
 */
export function fakeSignature(thinking: string): string {
  return Buffer.from(`fake-signature:${createHash("sha256").update(thinking).digest("hex").slice(0, 16)}`).toString("base64");
}

/** The first rule of extended thinking that `body` breaks (the `thinking` field and the thinking blocks it sends back), or undefined. */
function thinkingProblem(body: Json, messages: Json[]): string | undefined {
  const thinking = body.thinking;
  let enabled = false;
  if (thinking !== undefined) {
    if (!["enabled", "adaptive", "disabled"].includes(thinking?.type)) return "thinking.type: Input should be 'enabled', 'adaptive' or 'disabled'";
    enabled = thinking.type !== "disabled";
    if (thinking.type === "enabled") {
      if (typeof thinking.budget_tokens !== "number" || thinking.budget_tokens < 1024) return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
      if (thinking.budget_tokens >= body.max_tokens) return "`max_tokens` must be greater than `thinking.budget_tokens`";
    }
    if (enabled && body.temperature !== undefined && body.temperature !== 1) return "`temperature` may only be set to 1 when thinking is enabled";
  }
  for (const [index, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [at, block] of (message.content as Json[]).entries()) {
      if (block.type !== "thinking" && block.type !== "redacted_thinking") continue;
      if (message.role !== "assistant") return `messages.${index}.content.${at}: thinking blocks may only appear in assistant messages`;
      if (block.cache_control) return `messages.${index}.content.${at}.thinking.cache_control: Extra inputs are not permitted`;
      if (block.type === "redacted_thinking" && (typeof block.data !== "string" || !block.data)) return `messages.${index}.content.${at}.redacted_thinking.data: Field required`;
      if (block.type === "thinking" && (typeof block.thinking !== "string" || block.signature !== fakeSignature(block.thinking))) {
        return `messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  const last = messages.at(-1);
  const continuesToolUse = last?.role === "user" && Array.isArray(last.content) && last.content.some((block: Json) => block.type === "tool_result");
  const asked = messages.at(-2);
  if (enabled && continuesToolUse && asked?.role === "assistant" && Array.isArray(asked.content)) {
    const first = asked.content[0]?.type;
    if (first !== "thinking" && first !== "redacted_thinking") {
      return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`;
    }
  }
  return undefined;
}

/**
 * The first rule of the Messages API that `body` breaks, or undefined: the structural rules, then
 * those of extended thinking (`thinking` well-formed, `max_tokens` > `budget_tokens`, no
 * temperature other than 1 with thinking, thinking blocks only in assistant turns, each sent back
 * with the signature this server gave it, and, with thinking on, an assistant turn whose tool use
 * goes on opening with its thinking block).
 */
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
  return thinkingProblem(body, messages);
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
