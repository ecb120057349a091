/**
 * A scripted OpenAI Responses API server on 127.0.0.1 for tests: real HTTP, real SSE
 * (`event: <type>\ndata: <json>\n\n`), the event sequence and payload shapes OpenAI documents, each
 * with its `sequence_number`: `response.created`, `response.in_progress`, per output item
 * `response.output_item.added` … `response.output_item.done` (reasoning: `reasoning_summary_part.*`
 * and `reasoning_summary_text.*`; message: `content_part.*` and `output_text.*`; function call:
 * `function_call_arguments.*`), then `response.completed` with usage, `response.incomplete`,
 * `response.failed` or an `error` event.
 *
 * Each `POST /v1/responses` is first checked against the rules a stateless (`store: false`) request
 * must follow: `model` and an `input` array, no `previous_response_id` (nothing is stored), every
 * `function_call_output` answering an earlier `function_call` and every `function_call` answered,
 * no reasoning item without `encrypted_content`. A violation is answered with the status and
 * wording OpenAI uses, without consuming a step. Otherwise the next step is answered. Encrypted
 * reasoning content is returned only when the request `include`s `reasoning.encrypted_content`, as
 * the real API does. An exhausted script answers HTTP 500. `GET /v1/models` answers a model list.
 * `{ stall: true }` sends the headers and nothing more; `{ hang: "headers" }` never answers; `{ endless: true }` streams text deltas forever. Every request
 * is recorded before it is answered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sleep } from "../../src/shared/abort.js";
import { fillerText, hangUntilClosed, streamForever, type EndlessStep, type HangStep } from "./fake-edges.js";
import { readBody, sendJson } from "./http-json.js";

export type { EndlessStep, HangStep } from "./fake-edges.js";

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
}

export interface FakeFunctionCall {
  /** The `call_id`; generated when absent. */
  id?: string;
  name: string;
  /** An object is JSON-encoded and streamed in fragments; a string is streamed verbatim. */
  arguments: Record<string, unknown> | string;
}

/** One reasoning output item: summary parts (streamed), and the opaque content returned when asked for. */
export interface FakeReasoning {
  /** Default `rs_<n>`. */
  id?: string;
  summary: string[];
  /** Default `enc:<id>`; sent only when the request includes `reasoning.encrypted_content`. */
  encrypted?: string;
}

/** A model answer: optional reasoning, optional text, optional function calls, in that output order. */
export interface AnswerStep {
  reasoning?: FakeReasoning;
  text?: string;
  /** Exact text pieces; their join is the text. */
  chunks?: string[];
  toolCalls?: FakeFunctionCall[];
  usage?: Partial<ResponsesUsage>;
  /** End with `response.incomplete` for this reason instead of `response.completed`. */
  incomplete?: "max_output_tokens" | "content_filter";
  /** End with `response.failed` carrying this error instead of `response.completed`. */
  failed?: { code: string; message: string };
  /** End with an `error` event instead of `response.completed`. */
  streamError?: { code: string | null; message: string };
  /** Pause before every event after `response.created`. */
  delayMs?: number;
  /** Stop after this many delta events and drop the connection. */
  cutAfterDeltas?: number;
}

/** A plain HTTP error; `body` defaults to OpenAI's error JSON. */
export interface HttpErrorStep {
  status: number;
  message?: string;
  /** `error.type`; default `invalid_request_error` below 500, `server_error` otherwise. */
  errorType?: string;
  code?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Sends the response headers and then nothing, until the client or the server gives up. */
export interface StallStep {
  stall: true;
}

export type ResponsesStep = AnswerStep | HttpErrorStep | StallStep | HangStep | EndlessStep;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke into arbitrary request shapes
  body: any;
}

export interface FakeResponses {
  /** e.g. `http://127.0.0.1:PORT/v1` (the SDK appends `/responses`). */
  baseUrl: string;
  /** Every request, `GET /v1/models` included, in arrival order. */
  requests: RecordedRequest[];
  /** The recorded `POST /v1/responses` bodies, in order (rejected ones included). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
  responseBodies(): any[];
  push(...steps: ResponsesStep[]): void;
  remaining(): number;
  /** Requests whose connection is still open (0 once every client has disconnected). */
  inFlight(): number;
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
type Json = any;

interface Reply {
  res: ServerResponse;
  signal: AbortSignal;
  sequence: number;
}

function send(reply: Reply, type: string, data: Record<string, unknown>): boolean {
  if (reply.signal.aborted || reply.res.destroyed) return false;
  const payload = { type, sequence_number: reply.sequence++, ...data };
  reply.res.write(`event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`);
  return true;
}

function pieces(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function errorBody(message: string, type: string, code: string | null = null, param: string | null = null): Record<string, unknown> {
  return { error: { message, type, param, code } };
}

/** The first rule of a stateless Responses request that `body` breaks, as [status, error body], or undefined. */
export function responsesRequestProblem(body: Json): [number, Record<string, unknown>] | undefined {
  if (typeof body?.model !== "string" || !body.model) return [400, errorBody("Missing required parameter: 'model'.", "invalid_request_error", "missing_required_parameter", "model")];
  if (body.previous_response_id) {
    return [400, errorBody(`Previous response with id '${body.previous_response_id}' not found.`, "invalid_request_error", "previous_response_not_found", "previous_response_id")];
  }
  if (!Array.isArray(body.input)) return [400, errorBody("Invalid type for 'input': expected an array.", "invalid_request_error", "invalid_type", "input")];
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of (body.input as Json[]).entries()) {
    if (item?.type === "function_call") calls.add(String(item.call_id));
    if (item?.type === "function_call_output") {
      if (!calls.has(String(item.call_id))) {
        return [400, errorBody(`No tool call found for function call output with call_id ${item.call_id}.`, "invalid_request_error", null, `input[${index}]`)];
      }
      answered.add(String(item.call_id));
    }
    if (item?.type === "reasoning" && !item.encrypted_content) {
      return [404, errorBody(`Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false.`, "invalid_request_error", null, "input")];
    }
    if (item?.role === "user" && !Array.isArray(item.content) && typeof item.content !== "string") {
      return [400, errorBody(`Invalid 'input[${index}].content'.`, "invalid_request_error", "invalid_type", `input[${index}].content`)];
    }
  }
  const unanswered = [...calls].find((id) => !answered.has(id));
  if (unanswered) return [400, errorBody(`No tool output found for function call ${unanswered}.`, "invalid_request_error", null, "input")];
  return undefined;
}

interface Item {
  added: Record<string, unknown>;
  /** Events between `output_item.added` and `output_item.done`; `delta` marks those `cutAfterDeltas` counts. */
  events: { type: string; data: Record<string, unknown>; delta?: boolean }[];
  done: Record<string, unknown>;
}

/** The output items of an answer, in stream order, with their inner events. */
function outputItems(step: AnswerStep, responseNumber: number, withEncrypted: boolean): Item[] {
  const items: Item[] = [];
  if (step.reasoning) {
    const id = step.reasoning.id ?? `rs_${responseNumber}`;
    const output_index = items.length;
    const events: Item["events"] = [];
    step.reasoning.summary.forEach((text, summary_index) => {
      const at = { item_id: id, output_index, summary_index };
      events.push({ type: "response.reasoning_summary_part.added", data: { ...at, part: { type: "summary_text", text: "" } } });
      for (const delta of pieces(text)) events.push({ type: "response.reasoning_summary_text.delta", data: { ...at, delta }, delta: true });
      events.push({ type: "response.reasoning_summary_text.done", data: { ...at, text } });
      events.push({ type: "response.reasoning_summary_part.done", data: { ...at, part: { type: "summary_text", text } } });
    });
    const encrypted = withEncrypted ? { encrypted_content: step.reasoning.encrypted ?? `enc:${id}` } : {};
    items.push({
      added: { id, type: "reasoning", summary: [], ...encrypted },
      events,
      done: { id, type: "reasoning", summary: step.reasoning.summary.map((text) => ({ type: "summary_text", text })), ...encrypted },
    });
  }
  const text = step.chunks ? step.chunks.join("") : step.text;
  if (text !== undefined) {
    const id = `msg_${responseNumber}`;
    const at = { item_id: id, output_index: items.length, content_index: 0 };
    const part = (value: string): Record<string, unknown> => ({ type: "output_text", annotations: [], logprobs: [], text: value });
    items.push({
      added: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
      events: [
        { type: "response.content_part.added", data: { ...at, part: part("") } },
        ...(step.chunks ?? pieces(text)).map((delta) => ({ type: "response.output_text.delta", data: { ...at, delta, logprobs: [] }, delta: true })),
        { type: "response.output_text.done", data: { ...at, text, logprobs: [] } },
        { type: "response.content_part.done", data: { ...at, part: part(text) } },
      ],
      done: { id, type: "message", status: "completed", role: "assistant", content: [part(text)] },
    });
  }
  step.toolCalls?.forEach((call, index) => {
    const id = `fc_${responseNumber}_${index}`;
    const callId = call.id ?? `call_fake_${responseNumber}_${index}`;
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const at = { item_id: id, output_index: items.length };
    const item = { id, type: "function_call", call_id: callId, name: call.name };
    items.push({
      added: { ...item, status: "in_progress", arguments: "" },
      events: [
        ...pieces(args, 7).map((delta) => ({ type: "response.function_call_arguments.delta", data: { ...at, delta }, delta: true })),
        { type: "response.function_call_arguments.done", data: { ...at, name: call.name, arguments: args } },
      ],
      done: { ...item, status: "completed", arguments: args },
    });
  });
  return items;
}

function responseObject(id: string, body: Json, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    object: "response",
    created_at: 1_700_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: null,
    metadata: {},
    ...extra,
  };
}

async function writeAnswer(reply: Reply, step: AnswerStep, body: Json, responseNumber: number): Promise<void> {
  const withEncrypted = Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content");
  const items = outputItems(step, responseNumber, withEncrypted);
  const id = `resp_fake_${responseNumber}`;
  reply.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const pause = (): Promise<void> => (step.delayMs ? sleep(step.delayMs, reply.signal) : Promise.resolve());
  send(reply, "response.created", { response: responseObject(id, body, "in_progress") });
  send(reply, "response.in_progress", { response: responseObject(id, body, "in_progress") });
  let deltas = 0;
  for (const [output_index, item] of items.entries()) {
    await pause();
    if (!send(reply, "response.output_item.added", { output_index, item: item.added })) return;
    for (const event of item.events) {
      if (event.delta && step.cutAfterDeltas !== undefined && deltas >= step.cutAfterDeltas) {
        reply.res.destroy();
        return;
      }
      await pause();
      if (!send(reply, event.type, event.data)) return;
      if (event.delta) deltas += 1;
    }
    send(reply, "response.output_item.done", { output_index, item: item.done });
  }
  await pause();
  const usage = {
    input_tokens: step.usage?.input_tokens ?? 10,
    input_tokens_details: { cached_tokens: step.usage?.cached_tokens ?? 0 },
    output_tokens: step.usage?.output_tokens ?? 5,
    output_tokens_details: { reasoning_tokens: step.usage?.reasoning_tokens ?? 0 },
    total_tokens: (step.usage?.input_tokens ?? 10) + (step.usage?.output_tokens ?? 5),
  };
  const output = items.map((item) => item.done);
  if (step.streamError) {
    send(reply, "error", { code: step.streamError.code, message: step.streamError.message, param: null });
  } else if (step.failed) {
    send(reply, "response.failed", { response: responseObject(id, body, "failed", { output, error: step.failed }) });
  } else if (step.incomplete) {
    send(reply, "response.incomplete", { response: responseObject(id, body, "incomplete", { output, usage, incomplete_details: { reason: step.incomplete } }) });
  } else {
    send(reply, "response.completed", { response: responseObject(id, body, "completed", { output, usage }) });
  }
  reply.res.end();
}

/** `response.created`, a message item, then text deltas without end. */
function writeEndless(res: ServerResponse, signal: AbortSignal, body: Json, step: EndlessStep): Promise<void> {
  const text = fillerText(step.chunkChars ?? 4_000);
  let sequence = 0;
  const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const at = { item_id: "msg_endless", output_index: 0, content_index: 0 };
  return streamForever(res, signal, (i) =>
    i === 0
      ? frame("response.created", { response: responseObject("resp_fake_endless", body, "in_progress") }) +
        frame("response.output_item.added", { output_index: 0, item: { id: "msg_endless", type: "message", status: "in_progress", role: "assistant", content: [] } })
      : frame("response.output_text.delta", { ...at, delta: text, logprobs: [] }),
  );
}

/** Starts the server on a random loopback port. Steps may be given now or later with `push`. */
export async function startFakeResponses(steps: ResponsesStep[] = [], options: { models?: string[] } = {}): Promise<FakeResponses> {
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
      const data = (options.models ?? ["gpt-5-mini"]).map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "openai" }));
      return sendJson(res, 200, { object: "list", data });
    }
    if (req.method !== "POST" || route !== "/v1/responses") return sendJson(res, 404, errorBody(`Invalid URL (${req.method} ${route})`, "invalid_request_error"));
    const problem = responsesRequestProblem(body);
    if (problem) return sendJson(res, problem[0], problem[1]);
    const step = script.shift();
    if (!step) return sendJson(res, 500, errorBody("fake-responses: script exhausted", "server_error"));
    if ("stall" in step) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      return hangUntilClosed(controller.signal);
    }
    if ("hang" in step) return hangUntilClosed(controller.signal);
    if ("endless" in step) return writeEndless(res, controller.signal, body, step);
    if ("status" in step) {
      const type = step.errorType ?? (step.status >= 500 ? "server_error" : "invalid_request_error");
      const payload = step.body ?? errorBody(step.message ?? `fake-responses: HTTP ${step.status}`, type, step.code ?? null);
      return sendJson(res, step.status, payload, step.headers);
    }
    count += 1;
    try {
      await writeAnswer({ res, signal: controller.signal, sequence: 0 }, step, body, count);
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`fake-responses: ${String(error)}`, "server_error"));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    responseBodies: () => requests.filter((request) => request.method === "POST" && request.path.startsWith("/v1/responses")).map((request) => request.body),
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
