import { describe, expect, expectTypeOf, it } from "vitest";
import type { ChatMessage } from "../llm/types.js";
import { decodeMessage, encodeMessage, MESSAGE_COLUMNS, messageText, recordOfValues, toolCallsIn } from "./codec.js";
import type { StoredMessage } from "./types.js";

const SAMPLE_MESSAGES: StoredMessage[] = [
  { role: "system", content: "You are Hermes." },
  { role: "user", content: "Fix the failing test in parser.ts" },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this screenshot?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      { type: "text", text: "second part" },
    ],
  },
  {
    role: "assistant",
    content: null,
    reasoning: "I should read the file first.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"parser.ts"}' } },
      { id: "call_2", type: "function", function: { name: "search_files", arguments: '{"pattern":"parse("}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_1", name: "read_file", content: "export function parse() {}" },
  { role: "tool", tool_call_id: "call_2", content: "no name given" },
  { role: "assistant", content: "Done: the parser now handles empty input.", finish_reason: "stop" },
  { role: "assistant", content: "" },
];

describe("message codec", () => {
  it("round-trips every message shape exactly (optional fields stay absent)", () => {
    for (const message of SAMPLE_MESSAGES) expect(decodeMessage(encodeMessage(message))).toStrictEqual(message);
  });

  it("keeps searchable text in content and the parts as JSON", () => {
    const row = encodeMessage(SAMPLE_MESSAGES[2]!);
    expect(row.content).toBe("What is in this screenshot?\nsecond part");
    expect(JSON.parse(row.content_parts!)).toEqual((SAMPLE_MESSAGES[2] as { content: unknown }).content);
  });

  it("counts tool calls and renders text for context", () => {
    expect(SAMPLE_MESSAGES.map(toolCallsIn)).toEqual([0, 0, 0, 2, 0, 0, 0, 0]);
    expect(messageText(SAMPLE_MESSAGES[3]!)).toBe('[read_file({"path":"parser.ts"})] [search_files({"pattern":"parse("})]');
  });

  it("rejects an unknown role", () => {
    expect(() => encodeMessage({ role: "robot", content: "x" } as unknown as StoredMessage)).toThrow(/role "robot"/);
  });

  it("StoredMessage and the llm layer's ChatMessage stay the same shape", () => {
    expectTypeOf<ChatMessage>().toExtend<StoredMessage>();
    expectTypeOf<StoredMessage>().toExtend<ChatMessage>();
  });
});

describe("recordOfValues", () => {
  it("reads a raw row in MESSAGE_COLUMNS' order", () => {
    const names = MESSAGE_COLUMNS.split(",").map((name) => name.trim());
    const record = recordOfValues(names.map((_name, index) => index)) as unknown as Record<string, number>;
    expect(Object.keys(record)).toEqual(names);
    names.forEach((name, index) => expect(record[name]).toBe(index));
  });
});
