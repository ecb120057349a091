import { PassThrough } from "node:stream";
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { FLUSH_CHARS, jsonLinesWritable, MAX_BACKLOG_CHARS, MAX_ERROR_FRAME_CHARS, serializeFrame } from "./json-lines-writable.js";

const frame = (id: number): AnyMessage => ({ jsonrpc: "2.0", id, result: {} });

describe("jsonLinesWritable", () => {
  it("writes every message of one turn as JSON lines in a single chunk, in order", async () => {
    const sink = new PassThrough();
    const chunks: string[] = [];
    sink.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
    const writer = jsonLinesWritable(sink).messages.getWriter();
    for (const id of [1, 2, 3]) await writer.write(frame(id));
    await new Promise((resolve) => setImmediate(resolve));
    await writer.write(frame(4));
    await writer.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n',
      '{"jsonrpc":"2.0","id":4,"result":{}}\n',
    ]);
  });

  it("hands a turn that writes more than FLUSH_CHARS to the stream as it goes, in order", async () => {
    const sink = new PassThrough();
    let received = "";
    sink.on("data", (chunk: Buffer) => (received += chunk.toString()));
    const writer = jsonLinesWritable(sink).messages.getWriter();
    const big = (id: number): AnyMessage => ({ jsonrpc: "2.0", id, result: { text: "x".repeat(1000) } });
    const count = Math.ceil((3 * FLUSH_CHARS) / 1000);
    let seenBeforeLast = 0;
    for (let id = 0; id < count; id++) {
      if (id === count - 1) seenBeforeLast = received.length;
      await writer.write(big(id));
    }
    await writer.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seenBeforeLast).toBeGreaterThanOrEqual(2 * FLUSH_CHARS);
    expect(received.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([...Array(count).keys()]);
  });

  it("waits for drain once more than MAX_BACKLOG_CHARS wait in a stream that pushes back, not before", async () => {
    const sink = new PassThrough();
    const writer = jsonLinesWritable(sink).messages.getWriter();
    const big = (id: number): AnyMessage => ({ jsonrpc: "2.0", id, result: { text: "x".repeat(10_000) } });
    const turns = async (): Promise<void> => {
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    let resolved = 0;
    const write = (id: number): Promise<void> => writer.write(big(id)).then(() => void resolved++);
    const below = Array.from({ length: Math.floor(MAX_BACKLOG_CHARS / 20_000) }, (_, id) => write(id));
    await turns();
    expect(resolved).toBe(below.length);
    const above = Array.from({ length: Math.ceil(MAX_BACKLOG_CHARS / 10_000) }, (_, id) => write(below.length + id));
    await turns();
    expect(resolved).toBeLessThan(below.length + above.length);
    sink.resume();
    await Promise.all(above);
    expect(resolved).toBe(below.length + above.length);
  });
});

describe("serializeFrame", () => {
  it("turns a response that cannot be serialized into a -32603 error to the same id, and never throws", () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const response = { jsonrpc: "2.0", id: 4, result: { deep } } as AnyMessage;
    expect(JSON.parse(serializeFrame(response))).toEqual({ jsonrpc: "2.0", id: 4, error: { code: -32603, message: "Internal error: the response could not be serialized" } });
    expect(serializeFrame({ jsonrpc: "2.0", method: "x", params: { deep } } as AnyMessage)).toBe("");
  });

  it("drops the data of an oversized error response and keeps its code and message", () => {
    const response = { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params", data: { blob: "z".repeat(MAX_ERROR_FRAME_CHARS) } } } as AnyMessage;
    expect(JSON.parse(serializeFrame(response))).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params" } });
  });
});
