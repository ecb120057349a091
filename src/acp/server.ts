import { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk/unstable";
import type { Runtime } from "../runtime/runtime.js";
import { log } from "../shared/logger.js";
import { createAgentApp } from "./agent-app.js";
import { jsonLinesWritable } from "./json-lines-writable.js";

/**
 * Serves ACP over the given byte streams (stdin/stdout in production) until the client closes
 * the connection. Only JSON-RPC frames are written to `output`.
 */
export async function serveAcp(runtime: Runtime, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<void> {
  const { app, sessions } = createAgentApp(runtime);
  // Incoming frames are parsed by the SDK's NDJSON reader; outgoing ones take our batched writer.
  const out = jsonLinesWritable(output);
  const incoming = ndJsonStream(out.bytes, Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>);
  const stream = { readable: incoming.readable, writable: out.messages };
  const connection = app.connect(stream);
  log.info("ACP server ready on stdio");
  await connection.closed;
  await sessions.closeAll();
  log.info("ACP connection closed");
}
