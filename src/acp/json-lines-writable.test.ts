import { PassThrough } from "node:stream";
import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { jsonLinesWritable } from "./json-lines-writable.js";

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
