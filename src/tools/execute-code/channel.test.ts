import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { InnerToolsPort } from "../ports.js";
import { ToolSessionState } from "../session-state.js";
import { MAX_LISTED_REFUSALS, MAX_REQUEST_CHARS, serveChannel } from "./channel.js";

const port = (names: string[] = ["read_file"]): InnerToolsPort & { invoked: number } => {
  const counted = {
    invoked: 0,
    names: () => names,
    invoke: async () => {
      counted.invoked += 1;
      return { content: '{"content": "1|ok"}', isError: false };
    },
  };
  return counted;
};

/** fd 4 of a script that never reads it: writes are taken into a small buffer and never finish. */
function unreadResponses(): Writable & { writes: number } {
  const stream = new Writable({ highWaterMark: 1024, write: () => undefined }) as Writable & { writes: number };
  stream.writes = 0;
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string) => {
    stream.writes += 1;
    return write(chunk);
  }) as typeof stream.write;
  return stream;
}

/** fd 4 of a script that reads every answer: the lines written. */
function readResponses(): { stream: Writable; lines: () => Array<{ id: unknown; result: unknown }> } {
  let text = "";
  const stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      text += chunk.toString("utf8");
      done();
    },
  });
  return { stream, lines: () => text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { id: unknown; result: unknown }) };
}

const turns = (n = 20): Promise<void> => new Promise((resolve) => (n <= 0 ? resolve() : setImmediate(() => void turns(n - 1).then(resolve))));

describe("the execute_code channel", () => {
  it("stops reading a script that floods fd 3 without reading its answers: no unbounded queue or reply buffer", async () => {
    const requests = new PassThrough();
    const responses = unreadResponses();
    const stop = new AbortController();
    const server = serveChannel(requests, responses, { port: port(), allowed: ["read_file"], maxCalls: 50, state: new ToolSessionState(), stop: stop.signal });
    const flood = "x\n".repeat(50_000) + `${JSON.stringify({ id: 1, tool: "memory", args: {} })}\n`.repeat(50_000);
    // a pipe takes what it can; the rest waits with the writer
    let accepted = 0;
    for (let offset = 0; offset < flood.length; offset += 65_536) {
      requests.write(flood.slice(offset, offset + 65_536));
      accepted += 1;
      await turns(2);
    }
    await turns();
    // answers stop once the script has a buffer full of unread ones, and nothing is read on behalf of it meanwhile
    expect(responses.writes).toBeLessThan(200);
    expect(requests.readableLength + requests.writableLength).toBeGreaterThan(flood.length / 2);
    expect(server.calls.length).toBeLessThanOrEqual(MAX_LISTED_REFUSALS);
    expect(accepted).toBeGreaterThan(0);
    stop.abort();
    requests.destroy();
    responses.destroy();
    await server.settled();
  });

  it("answers an over-long line once, skips to its end, and serves the next request", async () => {
    const requests = new PassThrough();
    const { stream, lines } = readResponses();
    const stop = new AbortController();
    const tools = port();
    const server = serveChannel(requests, stream, { port: tools, allowed: ["read_file"], maxCalls: 50, state: new ToolSessionState(), stop: stop.signal });
    const chunk = "y".repeat(1_000_000);
    for (let written = 0; written <= MAX_REQUEST_CHARS * 2; written += chunk.length) {
      requests.write(chunk);
      await turns(1);
    }
    requests.write(`\n${JSON.stringify({ id: 7, tool: "read_file", args: { path: "a.txt" } })}\n`);
    await turns();
    requests.end();
    await turns();
    stop.abort();
    await server.settled();
    expect(lines()).toEqual([
      { id: null, result: { error: `Request too large (over ${MAX_REQUEST_CHARS} characters); nothing was run.` } },
      { id: 7, result: { content: "1|ok" } },
    ]);
    expect(tools.invoked).toBe(1);
  });
});
