import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { readFrames } from "./frame-reader.js";

/** Feeds `chunks` through the reader; returns what it passed on, what it answered, and how it ended. */
async function run(chunks: string[], limits = { maxBytes: 1000, maxDepth: 16 }) {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  const answers: AnyMessage[] = [];
  const reader = readFrames(input, async (response) => void answers.push(response), limits);
  const passed: AnyMessage[] = [];
  for await (const message of reader.messages) passed.push(message);
  return { passed, answers, end: reader.end() };
}

const errorOf = (message: AnyMessage | undefined) => (message && "error" in message ? { id: message.id, ...message.error } : undefined);

describe("readFrames", () => {
  it("passes requests, notifications and responses on, and ends with eof", async () => {
    const { passed, answers, end } = await run([
      '{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}\n{"jsonrpc":"2.0","method":"x/note"}\n',
      '{"jsonrpc":"2.0","id":5,"result":{}}\n',
    ]);
    expect(passed.map((message) => ("method" in message ? message.method : "response"))).toEqual(["session/list", "x/note", "response"]);
    expect(answers).toEqual([]);
    expect(end).toBe("eof");
  });

  it("answers oversize, too deep, unparseable, batch and non-JSON-RPC lines with short errors and keeps reading", async () => {
    const { passed, answers } = await run([
      `{"jsonrpc":"2.0","id":"big","method":"m","pad":"${"a".repeat(3000)}"}\n`,
      `{"jsonrpc":"2.0","id":"deep","method":"m","params":${"[".repeat(50)}${"]".repeat(50)}}\n`,
      "not json\n[1,2]\n",
      `{"jsonrpc":"1.0","id":9,"method":"m","junk":"${"j".repeat(500)}"}\n`,
      '{"jsonrpc":"2.0","id":2,"method":"session/close","params":{"sessionId":"s"}}\n',
    ]);
    expect(answers.map(errorOf)).toEqual([
      { id: "big", code: -32600, message: "Invalid request: frame exceeds 1000 bytes" },
      { id: "deep", code: -32600, message: "Invalid request: frame nests deeper than 16 levels" },
      { id: null, code: -32700, message: "Parse error" },
      { id: null, code: -32600, message: "Invalid request: JSON-RPC batches are not supported" },
      { id: 9, code: -32600, message: "Invalid request: not a JSON-RPC 2.0 request, notification or response" },
    ]);
    expect(passed).toHaveLength(1);
  });

  it("answers a request with bad params with -32602 to its id and does not pass it on", async () => {
    const { passed, answers } = await run(['{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}\n']);
    expect(passed).toEqual([]);
    expect(errorOf(answers[0])).toMatchObject({ id: 3, code: -32602, data: { field: "cwd" } });
  });
});
