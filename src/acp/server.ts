import { Readable } from "node:stream";
import type { RuntimeLoader } from "../runtime/lazy-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { log } from "../shared/logger.js";
import { createAgentApp, type AgentAppOptions } from "./agent-app.js";
import { readFrames } from "./frame-reader.js";
import { jsonLinesWritable } from "./json-lines-writable.js";

/** How serving ended without an error: the client closed the input, or `signal` stopped it. */
export type ServeEnd = "eof" | "stopped";

/**
 * Serves ACP over the given byte streams (stdin/stdout in production) for `runtime`, or a
 * `RuntimeLoader` that builds it after `initialize` (see `createAgentApp`). Only JSON-RPC frames are
 * written to `output`. Incoming frames pass the bounded reader (frame-reader.ts), so no input
 * line — oversize, too deep, invalid — ends the connection; each gets an error answer.
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
  options: { signal?: AbortSignal } & AgentAppOptions = {},
): Promise<ServeEnd> {
  const { app, sessions } = createAgentApp(runtime, { setupLaunch: options.setupLaunch });
  const out = jsonLinesWritable(output);
  const writer = out.messages.getWriter();
  const incoming = readFrames(Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>, (response) =>
    writer.write(response).catch(() => undefined),
  );
  const connection = app.connect({ readable: incoming.messages, writable: out.messages });
  let failure: unknown;
  const onOutputError = (error: Error): void => {
    failure ??= error;
    log.error("writing ACP output failed", error);
    connection.close(error);
  };
  output.on("error", onOutputError);
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
