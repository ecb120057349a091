import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { coalescingWritable } from "./coalescing-writable.js";

describe("coalescingWritable", () => {
  it("writes everything written in one turn as one chunk, in order", async () => {
    const sink = new PassThrough();
    const chunks: string[] = [];
    sink.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
    const writer = coalescingWritable(sink).getWriter();
    const encoder = new TextEncoder();
    for (const line of ["a\n", "b\n", "c\n"]) await writer.write(encoder.encode(line));
    await new Promise((resolve) => setImmediate(resolve));
    await writer.write(encoder.encode("d\n"));
    await writer.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(["a\nb\nc\n", "d\n"]);
  });

  it("waits for drain when the stream pushes back", async () => {
    const sink = new PassThrough({ highWaterMark: 4 });
    const writer = coalescingWritable(sink).getWriter();
    await writer.write(new TextEncoder().encode("0123456789"));
    await new Promise((resolve) => setImmediate(resolve));
    let accepted = false;
    const pending = writer.write(new TextEncoder().encode("x")).then(() => (accepted = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(accepted).toBe(false);
    sink.resume();
    await pending;
    expect(accepted).toBe(true);
  });
});
