import { Readable } from "node:stream";
import type { RuntimeLoader } from "../runtime/lazy-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { log } from "../shared/logger.js";
import { createAgentApp, type AgentAppOptions } from "./agent-app.js";
import type { EarlyStart } from "./early-initialize.js";
import { readFrames } from "./frame-reader.js";
import { answeredBeforeEnd, RequestsInFlight } from "./input-drain.js";
import { jsonLinesWritable, watchingOutput, withoutFirstResponse } from "./json-lines-writable.js";

/** How serving ended without an error: the client closed the input, or `signal` stopped it. */
export type ServeEnd = "eof" | "stopped";

/**
 * Serves ACP over the given byte streams (stdin/stdout in production) for `runtime`, or a
 * `RuntimeLoader` that builds it after `initialize` (see `createAgentApp`). Only JSON-RPC frames are
 * written to `output`. Incoming frames pass the bounded reader (frame-reader.ts), so no input
 * line — oversize, too deep, invalid — ends the connection; each gets an error answer. With
 * `early` (an `initialize` already answered, early-initialize.ts), `input` still holds that request
 * and the connection's answer to it is dropped: the client gets one answer per request. The
 * requests after it reach the connection once it has answered that `initialize` (the SDK rejects
 * any request that arrives while its `initialize` is still being answered; a client that got the
 * early answer may already have sent its next ones).
 *
 * At the end of input, running turns are cancelled (the client has gone) and the requests already
 * read are answered before the connection closes (input-drain.ts).
 *
 * Resolves "eof" once the client closed `input`, or "stopped" once `signal` aborted, in both
 * cases after every live session was closed (turns cancelled, their processes stopped) and the
 * pending output flushed. Rejects with the cause when the connection died of anything else (a
 * read or write failure on the streams): the caller treats that as a crash.
 */
export async function serveAcp(
  runtime: Runtime | RuntimeLoader,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  options: { signal?: AbortSignal; early?: EarlyStart } & AgentAppOptions = {},
): Promise<ServeEnd> {
  const answered = options.early?.answered;
  const { app, sessions } = createAgentApp(runtime, { setupLaunch: options.setupLaunch, firstInitializeAnswered: answered !== undefined });
  let skipped: () => void = () => undefined;
  const replayAnswered = new Promise<void>((resolve) => (skipped = resolve));
  const out = jsonLinesWritable(output);
  const writer = out.messages.getWriter();
  // The frame reader's own error answers are never the skipped one: only the connection's are.
  const incoming = readFrames(Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>, (response) =>
    writer.write(response).catch(() => undefined),
  );
  const inFlight = new RequestsInFlight();
  const readable = answeredBeforeEnd(answered === undefined ? incoming.messages : afterFirst(incoming.messages, replayAnswered), inFlight, () => sessions.cancelAll());
  const writable = watchingOutput(answered === undefined ? out.messages : withoutFirstResponse(out.messages, answered, skipped), (message) => inFlight.answered(message));
  const connection = app.connect({ readable, writable });
  void connection.closed.then(skipped, skipped);
  const released = (): void => inFlight.release();
  void connection.closed.then(released, released);
  let failure: unknown;
  const onOutputError = (error: Error): void => {
    failure ??= error;
    log.error("writing ACP output failed", error);
    connection.close(error);
  };
  output.on("error", onOutputError);
  if (options.early?.outputError) onOutputError(options.early.outputError);
  const stop = (): void => connection.close(new Error("ACP server stopped"));
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener("abort", stop, { once: true });
  log.info("ACP server ready on stdio");
  await connection.closed;
  options.signal?.removeEventListener("abort", stop);
  await sessions.closeAll();
  if (failure === undefined) await out.flush();
  const end = incoming.end();
  log.info(`ACP connection closed (${options.signal?.aborted ? "stopped" : (end ?? "connection error")})`);
  if (failure === undefined && options.signal?.aborted) return "stopped";
  if (failure === undefined && end === "eof") return "eof";
  throw failure ?? connection.signal.reason ?? new Error("ACP connection closed");
}

/**
 * `messages` with everything after the first message held back until `open` resolves.
 * Cancelling the result cancels `messages`.
 */
function afterFirst<T>(messages: ReadableStream<T>, open: Promise<void>): ReadableStream<T> {
  const reader = messages.getReader();
  let first = true;
  return new ReadableStream<T>({
    async pull(controller) {
      if (!first) await open;
      first = false;
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
