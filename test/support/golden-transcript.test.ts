import { describe, expect, it } from "vitest";
import { schemaProblems } from "./acp-schema.js";
import { normalizeFrames, transcriptDiff } from "./golden-transcript.js";
import type { RecordedFrame } from "./in-memory-acp.js";

const SESSION = "0b0e3f4c-1d2e-4f60-8a9b-0c1d2e3f4a5b";
const MESSAGE = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";

const frames: RecordedFrame[] = [
  { from: "client", message: { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp/work", mcpServers: [] } } },
  { from: "agent", message: { jsonrpc: "2.0", id: 1, result: { sessionId: SESSION } } },
  {
    from: "agent",
    message: {
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: SESSION, update: { sessionUpdate: "agent_message_chunk", messageId: MESSAGE, content: { type: "text", text: `Session: ${SESSION} in /tmp/work` } } },
    },
  },
  { from: "agent", message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "usage_update", used: 1234, size: 1000 } } } },
  {
    from: "agent",
    message: {
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: SESSION, update: { sessionUpdate: "session_info_update", title: "t", updatedAt: "2026-01-02T03:04:05.678Z" } },
    },
  },
];

describe("golden transcripts", () => {
  it("names ids by first appearance and kind, inside texts too, and replaces paths, times and estimates", () => {
    const lines = normalizeFrames(frames, { literals: { "/tmp/work": "<workspace>" } }).map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { from: "client", request: "session/new", id: 1, params: { cwd: "<workspace>", mcpServers: [] } },
      { from: "agent", response: "session/new", id: 1, result: { sessionId: "<session-1>" } },
      {
        from: "agent",
        notification: "session/update",
        params: {
          sessionId: "<session-1>",
          update: { content: { text: "Session: <session-1> in <workspace>", type: "text" }, messageId: "<message-1>", sessionUpdate: "agent_message_chunk" },
        },
      },
      { from: "agent", notification: "session/update", params: { sessionId: "<session-1>", update: { sessionUpdate: "usage_update", size: 1000, used: "<estimate>" } } },
      { from: "agent", notification: "session/update", params: { sessionId: "<session-1>", update: { sessionUpdate: "session_info_update", title: "t", updatedAt: "<time>" } } },
    ]);
  });

  it("reports the changed frames and a diff, and nothing for equal transcripts", () => {
    const lines = normalizeFrames(frames, { literals: {} });
    expect(transcriptDiff("x", "x.jsonl", lines, lines)).toBeUndefined();
    const report = transcriptDiff("x", "x.jsonl", lines, lines.slice(1));
    expect(report).toContain("+ #1 client request session/new");
    expect(report).toContain('+  "request": "session/new",');
    expect(report).toContain("UPDATE_GOLDEN=1");
  });
});

describe("ACP schema checks", () => {
  it("accepts valid frames", () => {
    expect(schemaProblems(frames)).toEqual([]);
  });

  it("names a bad update, a bad result, an unknown method and a response to nothing", () => {
    const problems = schemaProblems([
      { from: "agent", message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "no_such_update" } } } },
      { from: "client", message: { jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: SESSION, prompt: [] } } },
      { from: "agent", message: { jsonrpc: "2.0", id: 7, result: { stopReason: "bored" } } },
      { from: "agent", message: { jsonrpc: "2.0", method: "x/unknown", params: {} } },
      { from: "client", message: { jsonrpc: "2.0", id: 99, result: {} } },
    ]);
    expect(problems.some((line) => line.startsWith("frame 1 (agent): zSessionNotification"))).toBe(true);
    expect(problems.some((line) => line.startsWith("frame 3 (agent): zPromptResponse at stopReason"))).toBe(true);
    expect(problems).toContain("frame 4 (agent): no schema for notification x/unknown");
    expect(problems).toContain("frame 5 (client): response to unknown request 99");
  });
});
