import { PassThrough } from "node:stream";
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { jsonLinesWritable, MAX_ERROR_FRAME_CHARS, serializeFrame } from "./json-lines-writable.js";

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

  it("waits for drain when the stream pushes back", async () => {
    const sink = new PassThrough({ highWaterMark: 4 });
    const writer = jsonLinesWritable(sink).messages.getWriter();
    await writer.write(frame(1));
    await new Promise((resolve) => setImmediate(resolve));
    let accepted = false;
    const pending = writer.write(frame(2)).then(() => (accepted = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(accepted).toBe(false);
    sink.resume();
    await pending;
    expect(accepted).toBe(true);
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
