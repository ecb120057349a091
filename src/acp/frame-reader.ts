import { RequestError, type AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { log } from "../shared/logger.js";
import { FrameSplitter, MAX_FRAME_BYTES, MAX_FRAME_DEPTH, nestsDeeperThan, topLevelId, type FrameId, type SplitLine } from "./frame-splitter.js";
import { paramsError } from "./param-validation.js";

/** Limits of the incoming side of the transport. */
export interface FrameLimits {
  maxBytes: number;
  maxDepth: number;
}

/** What became of the input when the reader stopped. */
export type InputEnd = "eof" | "error" | "cancelled";

/**
 * The incoming half of the stdio transport: NDJSON bytes in, JSON-RPC messages out, with every
 * line answered rather than ever ending the connection. In order, a line is:
 * - longer than `maxBytes` → -32600 "frame exceeds N bytes", answered as soon as the limit is
 *   crossed; the rest of the line is discarded unread;
 * - nested deeper than `maxDepth` → -32600, without being parsed;
 * - not JSON → -32700; a JSON array → -32600 (ACP has no batches); not a JSON-RPC request,
 *   notification or response → -32600;
 * - a request whose params fail `paramsError` → that -32602 error;
 * - otherwise passed on to the connection.
 * Error answers carry the request's id when it can be found cheaply (else null), a short message
 * and no copy of the input. `reject` sends them; it must not throw. `end()` says how the input
 * finished — end of input, a read error, the consumer cancelled — and is undefined while it lasts;
 * it is set before `messages` closes.
 */
export function readFrames(
  input: ReadableStream<Uint8Array>,
  reject: (response: AnyMessage) => Promise<void>,
  limits: FrameLimits = { maxBytes: MAX_FRAME_BYTES, maxDepth: MAX_FRAME_DEPTH },
): { messages: ReadableStream<AnyMessage>; end: () => InputEnd | undefined } {
  const splitter = new FrameSplitter(limits.maxBytes);
  const decoder = new TextDecoder();
  let ended: InputEnd | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;

  const answer = (id: FrameId, error: RequestError): Promise<void> => {
    log.warn(`rejected an incoming frame: ${error.message}`);
    return reject({ jsonrpc: "2.0", id, error: { code: error.code, message: error.message } });
  };

  const classify = async (line: SplitLine, controller: ReadableStreamDefaultController<AnyMessage>): Promise<void> => {
    if (line.kind === "oversize") {
      return answer(topLevelId(line.head), RequestError.invalidRequest(undefined, `frame exceeds ${limits.maxBytes} bytes`));
    }
    if (nestsDeeperThan(line.bytes, limits.maxDepth)) {
      return answer(topLevelId(line.bytes), RequestError.invalidRequest(undefined, `frame nests deeper than ${limits.maxDepth} levels`));
    }
    const text = decoder.decode(line.bytes).trim();
    if (!text) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return answer(topLevelId(line.bytes), RequestError.parseError());
    }
    if (Array.isArray(message)) return answer(null, RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported"));
    const kind = messageKind(message);
    if (kind === undefined) {
      const id = isRecord(message) && isId(message.id) ? message.id : null;
      return answer(id, RequestError.invalidRequest(undefined, "not a JSON-RPC 2.0 request, notification or response"));
    }
    if (kind === "request") {
      const request = message as { id: FrameId; method: string; params?: unknown };
      const invalid = paramsError(request.method, request.params);
      if (invalid) {
        log.warn(`${request.method}: ${invalid.message}`);
        return reject({ jsonrpc: "2.0", id: request.id, error: { code: invalid.code, message: invalid.message, data: invalid.data } });
      }
    }
    controller.enqueue(message as AnyMessage);
  };

  const messages = new ReadableStream<AnyMessage>({
    async start(controller) {
      reader = input.getReader();
      let end: InputEnd = "eof";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (cancelled) return;
          if (done) break;
          for (const line of splitter.push(value)) await classify(line, controller);
        }
        for (const line of splitter.end()) await classify(line, controller);
      } catch (error) {
        end = cancelled ? "cancelled" : "error";
        if (!cancelled) {
          log.error("reading ACP input failed", error);
          controller.error(error);
        }
        return;
      } finally {
        ended = cancelled ? "cancelled" : end;
        reader.releaseLock();
      }
      controller.close();
    },
    cancel(reason) {
      cancelled = true;
      return reader?.cancel(reason);
    },
  });
  return { messages, end: () => ended };
}

type MessageKind = "request" | "notification" | "response";

/** The SDK's notion of a message it will handle, decided without copying anything. */
function messageKind(value: unknown): MessageKind | undefined {
  if (!isRecord(value)) return undefined;
  const hasMethod = "method" in value;
  if (hasMethod) {
    if (value.jsonrpc !== "2.0" || typeof value.method !== "string") return undefined;
    if (!("id" in value)) return "notification";
    return isId(value.id) ? "request" : undefined;
  }
  // Response-shaped frames go to the connection, which matches or drops them without answering.
  return "id" in value || "result" in value || "error" in value ? "response" : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is FrameId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}
