/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for tests: real HTTP, real SSE.
 *
 * Each `POST /v1/chat/completions` consumes the next script step and answers it, streamed when the
 * request asks for `stream: true`, as one `chat.completion` JSON otherwise. An exhausted script answers
 * HTTP 500 so a test that under-scripts fails loudly. A step with `when` answers only requests it accepts (so
 * concurrent callers, e.g. delegated children, can each have their own script; see `StepMatcher`), and
 * `systemPromptOf` / `lastUserText` help write such matchers. `GET /v1/models` answers a model list and consumes
 * nothing. Every request is recorded, in arrival order, before it is answered, with when it arrived and
 * when its answer was fully written (so a benchmark can subtract the model's time from a round trip).
 *
 * Adding a step kind means one new member of `ScriptStep` and one branch in `writeStep` calling its own
 * writer. Faults: an HTTP error (`status`, e.g. 429 with a `retry-after` header, or 500), a stream cut
 * mid-way (`cutAfterChunks`), a stall (`stallAfterChunks`), a truncated answer (`finishReason: "length"` on
 * text or tool calls), malformed tool-call arguments (a `string` that is not JSON), no response headers ever
 * (`{ hang: "headers" }`) and a stream that never ends (`{ endless: true }`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sleep } from "../../src/shared/abort.js";
import { fillerText, hangUntilClosed, streamForever } from "./fake-edges.js";
import type { AnswerStep, FakeUsage, HttpErrorStep, ReasoningStep, ScriptStep, TextStep, ToolCallsStep } from "./fake-llm-steps.js";
import { readBody, sendJson } from "./http-json.js";

export type * from "./fake-llm-steps.js";
export type { EndlessStep, HangStep } from "./fake-edges.js";

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke into arbitrary request shapes
  body: any;
  /** `performance.now()` when the request arrived, before its body was read. */
  receivedAt: number;
  /** `performance.now()` when the whole response had been handed to the socket; unset until then. */
  finishedAt?: number;
}

export interface FakeLlm {
  /** e.g. `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** Model calls (every request but `GET /models`), in arrival order. */
  requests: RecordedRequest[];
  /** Every request, `GET /models` included (the agent fetches the model list in the background). */
  allRequests: RecordedRequest[];
  push(...steps: ScriptStep[]): void;
  /** Steps not yet consumed. */
  remaining(): number;
  /** Requests whose answer is still being written (0 once disconnected clients have been cleaned up). */
  inFlight(): number;
  /** Stops answering, drops open connections and cancels pending delays. */
  close(): Promise<void>;
}

/** What a writer gets: the parsed request and helpers that stop quietly once the client has gone. */
interface ReplyContext {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
  body: any;
  res: ServerResponse;
  stream: boolean;
  /** Fires when the client disconnects or the server closes. */
  signal: AbortSignal;
  completionId: string;
}

/** One streamed delta; `deltas[i]` becomes chunk i. */
type Delta = Record<string, unknown>;

/** A complete model answer, in both its streamed and non-streamed forms. */
interface Completion {
  deltas: Delta[];
  message: Record<string, unknown>;
  finishReason: string;
  usage: Partial<FakeUsage> | undefined;
  delayMs: number;
}

/** The one dispatch point: each step kind has its own writer (or completion builder). */
function writeStep(ctx: ReplyContext, step: ScriptStep): Promise<void> {
  if ("status" in step) return writeHttpError(ctx, step);
  if ("hang" in step) return hangUntilClosed(ctx.signal);
  if ("endless" in step) {
    const text = fillerText(step.chunkChars ?? 4_000);
    return streamForever(ctx.res, ctx.signal, (i) => chunk(ctx, [{ index: 0, delta: i === 0 ? { role: "assistant", content: text } : { content: text }, logprobs: null, finish_reason: null }]));
  }
  if ("cutAfterChunks" in step) return writeCutStream(ctx, completionOf(step), step.cutAfterChunks);
  if ("stallAfterChunks" in step) return writeStall(ctx, completionOf(step), step.stallAfterChunks);
  return writeCompletion(ctx, completionOf(step));
}

function completionOf(step: AnswerStep): Completion {
  if ("tool_calls" in step) return toolCallsCompletion(step);
  if ("reasoning" in step) return reasoningCompletion(step);
  return textCompletion(step);
}

/** Splits text into pieces of about three words, keeping whitespace, so streaming is real. */
function splitText(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += 3) pieces.push(words.slice(i, i + 3).join(""));
  return pieces.length > 0 ? pieces : [text];
}

/** Splits a string into up to `parts` non-empty fragments of about equal length. */
function splitFragments(text: string, parts = 3): string[] {
  if (text.length <= 1) return [text];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const fragments: string[] = [];
  for (let i = 0; i < text.length; i += size) fragments.push(text.slice(i, i + size));
  return fragments;
}

function textCompletion(step: TextStep): Completion {
  const pieces = step.chunks ?? splitText(step.text);
  return {
    deltas: pieces.map((content) => ({ content })),
    message: { role: "assistant", content: step.chunks ? step.chunks.join("") : step.text },
    finishReason: step.finishReason ?? "stop",
    usage: step.usage,
    delayMs: step.delayMs ?? 0,
  };
}

function toolCallsCompletion(step: ToolCallsStep): Completion {
  const deltas: Delta[] = step.text ? splitText(step.text).map((content) => ({ content })) : [];
  const calls = step.tool_calls.map((call, index) => ({
    id: call.id ?? `call_fake_${index}_${Math.random().toString(36).slice(2, 10)}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
  calls.forEach((call, index) => {
    const fragments = splitFragments(call.arguments);
    deltas.push({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
    });
    for (const fragment of fragments) deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
  });
  return {
    deltas,
    message: {
      role: "assistant",
      content: step.text ?? null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    },
    finishReason: step.finishReason ?? "tool_calls",
    usage: step.usage,
    delayMs: step.delayMs ?? 0,
  };
}

function reasoningCompletion(step: ReasoningStep): Completion {
  const field = step.reasoningField ?? "reasoning_content";
  return {
    deltas: [
      ...splitText(step.reasoning).map((text) => ({ [field]: text })),
      ...splitText(step.text).map((content) => ({ content })),
    ],
    message: { role: "assistant", content: step.text, [field]: step.reasoning },
    finishReason: step.finishReason ?? "stop",
    usage: step.usage,
    delayMs: step.delayMs ?? 0,
  };
}

function fullUsage(ctx: ReplyContext, completion: Completion): FakeUsage {
  const prompt = completion.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(ctx.body?.messages ?? []).length / 4);
  const output = completion.usage?.completion_tokens ?? Math.ceil(JSON.stringify(completion.message).length / 4);
  const total = completion.usage?.total_tokens ?? prompt + output;
  return { ...completion.usage, prompt_tokens: prompt, completion_tokens: output, total_tokens: total };
}

/** Writes unless the client has gone; answers whether it wrote. */
function write(ctx: ReplyContext, text: string): boolean {
  if (ctx.signal.aborted || ctx.res.destroyed) return false;
  ctx.res.write(text);
  return true;
}

function chunk(ctx: ReplyContext, choices: unknown[], extra: Record<string, unknown> = {}): string {
  const model = typeof ctx.body?.model === "string" ? ctx.body.model : "fake-model";
  const payload = { id: ctx.completionId, object: "chat.completion.chunk", created: nowSeconds(), model, choices, ...extra };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** Streams or returns `completion` in OpenAI's exact wire format. Resolves early if the client goes away. */
async function writeCompletion(ctx: ReplyContext, completion: Completion): Promise<void> {
  const { res } = ctx;
  const wantUsage = completion.usage !== undefined || ctx.body?.stream_options?.include_usage === true;
  if (!ctx.stream) {
    if (completion.delayMs > 0) await sleep(completion.delayMs, ctx.signal);
    const model = typeof ctx.body?.model === "string" ? ctx.body.model : "fake-model";
    sendJson(res, 200, {
      id: ctx.completionId,
      object: "chat.completion",
      created: nowSeconds(),
      model,
      choices: [{ index: 0, message: completion.message, finish_reason: completion.finishReason, logprobs: null }],
      usage: fullUsage(ctx, completion),
    });
    return;
  }
  if (!(await writeDeltas(ctx, completion, Number.POSITIVE_INFINITY))) return;
  write(ctx, chunk(ctx, [{ index: 0, delta: {}, logprobs: null, finish_reason: completion.finishReason }]));
  if (wantUsage) write(ctx, chunk(ctx, [], { usage: fullUsage(ctx, completion) }));
  write(ctx, "data: [DONE]\n\n");
  res.end();
}

/**
 * Sends the SSE headers and the first `limit` delta chunks (all when `limit` is infinite); with `flush`,
 * each is handed to the socket before the next (so a fault that follows cannot discard it). Answers false
 * when the client went away.
 */
async function writeDeltas(ctx: ReplyContext, completion: Completion, limit: number, flush = false): Promise<boolean> {
  const { res } = ctx;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  const deltas = completion.deltas.length > 0 ? completion.deltas : [{ content: "" }];
  for (const [i, delta] of deltas.slice(0, limit).entries()) {
    if (i > 0 && completion.delayMs > 0) await sleep(completion.delayMs, ctx.signal);
    const body = i === 0 ? { role: "assistant", ...delta } : delta;
    const text = chunk(ctx, [{ index: 0, delta: body, logprobs: null, finish_reason: null }]);
    if (!flush) {
      if (!write(ctx, text)) return false;
      continue;
    }
    if (ctx.signal.aborted || res.destroyed) return false;
    await new Promise<void>((resolve) => res.write(text, () => resolve()));
  }
  return !ctx.signal.aborted && !res.destroyed;
}

/** Streams `afterChunks` chunks, then destroys the socket: no finish reason, no `[DONE]`. */
async function writeCutStream(ctx: ReplyContext, completion: Completion, afterChunks: number): Promise<void> {
  if (ctx.stream) await writeDeltas(ctx, completion, afterChunks, true);
  ctx.res.socket?.destroy();
  ctx.res.destroy();
}

/** Streams `afterChunks` chunks, then sends nothing until the client disconnects or the server closes. */
async function writeStall(ctx: ReplyContext, completion: Completion, afterChunks: number): Promise<void> {
  if (ctx.stream && !(await writeDeltas(ctx, completion, afterChunks, true))) return;
  if (ctx.signal.aborted) return;
  await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
}

async function writeHttpError(ctx: ReplyContext, step: HttpErrorStep): Promise<void> {
  const body = step.body ?? { error: { message: `fake-llm: HTTP ${step.status}`, type: "fake_error", code: null } };
  if (typeof body === "string") {
    ctx.res.writeHead(step.status, { "content-type": "text/plain", ...step.headers });
    ctx.res.end(body);
    return;
  }
  sendJson(ctx.res, step.status, body, step.headers);
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Starts the server on a random loopback port. Steps may be given now or later with `push`. */
export async function startFakeLlm(steps: ScriptStep[] = []): Promise<FakeLlm> {
  const script = [...steps];
  const requests: RecordedRequest[] = [];
  const allRequests: RecordedRequest[] = [];
  const active = new Set<AbortController>();
  let completions = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = performance.now();
    const body = await readBody(req);
    const path = req.url ?? "/";
    const record: RecordedRequest = { path, headers: { ...req.headers }, body, receivedAt };
    res.once("finish", () => {
      record.finishedAt = performance.now();
    });
    allRequests.push(record);
    const route = path.split("?")[0];
    if (req.method === "GET" && route === "/v1/models") {
      const data = [{ id: "fake-model", object: "model", created: 0, owned_by: "fake-llm" }];
      return sendJson(res, 200, { object: "list", data });
    }
    requests.push(record);
    if (req.method !== "POST" || route !== "/v1/chat/completions") {
      return sendJson(res, 404, { error: { message: `fake-llm: no route ${req.method} ${route}` } });
    }
    const index = script.findIndex((candidate) => !candidate.when || candidate.when(body));
    const step = index < 0 ? undefined : script.splice(index, 1)[0];
    if (!step) return sendJson(res, 500, { error: { message: script.length ? "fake-llm: no step matches this request" : "fake-llm: script exhausted" } });

    const controller = new AbortController();
    active.add(controller);
    res.on("close", () => controller.abort());
    completions += 1;
    const ctx: ReplyContext = {
      body,
      res,
      stream: (body as { stream?: unknown } | undefined)?.stream === true,
      signal: controller.signal,
      completionId: `chatcmpl-fake-${completions}`,
    };
    try {
      await writeStep(ctx, step);
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      active.delete(controller);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake-llm: ${String(error)}` } });
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
    allRequests,
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

/** The system message of a chat-completions request body ("" when it has none). */
export function systemPromptOf(body: unknown): string {
  return messageText(body, "system", 0);
}

/** The text of the last user message of a chat-completions request body ("" when it has none). */
export function lastUserText(body: unknown): string {
  return messageText(body, "user", -1);
}

function messageText(body: unknown, role: string, at: number): string {
  const messages = (body as { messages?: Array<{ role?: string; content?: unknown }> } | undefined)?.messages ?? [];
  const message = messages.filter((candidate) => candidate.role === role).at(at);
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("");
  return "";
}
