import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResponsesReasoningItem } from "../src/llm/types.js";
import type { PermissionAsker } from "../src/runtime/approvals.js";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentSession } from "../src/runtime/session.js";
import { startFakeResponses, type FakeResponses } from "./support/fake-responses.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * The Responses API through the real runtime (`model.api_mode: responses`, a scripted server over
 * real HTTP): a tool-calling turn, the encrypted reasoning items stored with the assistant messages
 * in state.db, and sent back, in place, by a new runtime on the same home after a restart.
 */

const denyAll: PermissionAsker = {
  askCommand: async () => ({ outcome: "deny" }) as never,
  askEdit: async () => ({ outcome: "deny" }) as never,
};

let fake: FakeResponses;
let home: TempHome;
const runtimes: Runtime[] = [];
const sessions: AgentSession[] = [];

beforeEach(async () => {
  fake = await startFakeResponses();
  home = createTempHome();
  home.writeConfig(
    [
      "model:",
      "  provider: custom",
      `  base_url: ${fake.baseUrl}`,
      "  api_mode: responses",
      "  default: gpt-5-mini",
      "agent:",
      "  reasoning_effort: medium",
      "auxiliary:",
      "  title:",
      "    enabled: false",
    ].join("\n"),
  );
});

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  for (const runtime of runtimes.splice(0)) runtime.directory.close();
  await fake.close();
  home.cleanup();
});

function newRuntime(): Runtime {
  const runtime = new Runtime({ home: home.home, env: home.env({ HERMES_TITLE_GENERATION: "off" }) });
  runtimes.push(runtime);
  return runtime;
}

async function ask(session: AgentSession, text: string): Promise<{ answer: string; thoughts: string }> {
  let answer = "";
  let thoughts = "";
  const result = await session.prompt(text, {
    emit: (event) => {
      if (event.type === "message_delta") answer += event.text;
      if (event.type === "reasoning_delta") thoughts += event.text;
    },
    signal: new AbortController().signal,
    asker: denyAll,
  });
  expect(result.stopReason).toBe("end_turn");
  return { answer, thoughts };
}

const item = (id: string, encrypted: string, text: string): ResponsesReasoningItem => ({
  type: "reasoning",
  id,
  encrypted_content: encrypted,
  summary: [{ type: "summary_text", text }],
});

describe("the Responses API through the runtime", () => {
  it("runs a tool-calling turn, stores the reasoning items, and sends them back after a restart", async () => {
    writeFileSync(join(home.workspace, "notes.txt"), "remember the milk\n");
    fake.push(
      {
        reasoning: { id: "rs_read", summary: ["I should read notes.txt."], encrypted: "gAAAA-enc-read" },
        toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.txt" } }],
        usage: { input_tokens: 900, output_tokens: 40, reasoning_tokens: 24 },
      },
      {
        reasoning: { id: "rs_answer", summary: ["The notes mention milk."], encrypted: "gAAAA-enc-answer" },
        text: "Your notes say to remember the milk.",
        usage: { input_tokens: 1000, output_tokens: 20, cached_tokens: 896 },
      },
    );
    const runtime = newRuntime();
    const session = await runtime.sessions.create(home.workspace);
    sessions.push(session);
    expect(session.resolved).toMatchObject({ apiMode: "responses", model: "gpt-5-mini" });
    expect(session.supportsReasoningEffort).toBe(true);

    const first = await ask(session, "what do my notes say?");
    expect(first.answer).toBe("Your notes say to remember the milk.");
    expect(first.thoughts).toContain("I should read notes.txt.");
    expect(first.thoughts).toContain("The notes mention milk.");

    const [call, answer] = fake.responseBodies();
    for (const body of [call, answer]) {
      expect(body.instructions).toBe(session.systemPrompt);
      expect(body.store).toBe(false);
      expect(body).not.toHaveProperty("previous_response_id");
      expect(body.include).toEqual(["reasoning.encrypted_content"]);
      expect(body.reasoning).toEqual({ effort: "medium", summary: "auto" });
      expect(body.tools.map((tool: { name: string }) => tool.name)).toContain("read_file");
      expect(body.tools.every((tool: { type: string; strict: boolean }) => tool.type === "function" && tool.strict === false)).toBe(true);
    }
    expect(call.input).toEqual([{ role: "user", content: [{ type: "input_text", text: "what do my notes say?" }] }]);
    expect(answer.input.slice(0, 3)).toEqual([
      { role: "user", content: [{ type: "input_text", text: "what do my notes say?" }] },
      item("rs_read", "gAAAA-enc-read", "I should read notes.txt."),
      { type: "function_call", call_id: "call_read", name: "read_file", arguments: '{"path":"notes.txt"}' },
    ]);
    expect(answer.input[3]).toMatchObject({ type: "function_call_output", call_id: "call_read" });
    expect(answer.input[3].output).toContain("remember the milk");
    expect(answer.input).toHaveLength(4);
    await session.saved();

    // A new process on the same home: the stored history still carries the reasoning items.
    const restarted = newRuntime();
    const restored = (await restarted.sessions.restore(session.id))!;
    expect(restored).toBeDefined();
    sessions.push(restored);
    const assistants = restored.history.filter((message) => message.role === "assistant");
    expect(assistants.map((message) => message.codex_reasoning_items)).toEqual([
      [item("rs_read", "gAAAA-enc-read", "I should read notes.txt.")],
      [item("rs_answer", "gAAAA-enc-answer", "The notes mention milk.")],
    ]);

    fake.push({ text: "You are welcome." });
    expect((await ask(restored, "thanks")).answer).toBe("You are welcome.");
    const after = fake.responseBodies()[2];
    expect(after.instructions).toBe(call.instructions);
    expect(after.store).toBe(false);
    expect(after).not.toHaveProperty("previous_response_id");
    const kinds = after.input.map((entry: { type?: string; role?: string }) => entry.type ?? entry.role);
    expect(kinds).toEqual(["user", "reasoning", "function_call", "function_call_output", "reasoning", "message", "user"]);
    expect(after.input[1]).toEqual(item("rs_read", "gAAAA-enc-read", "I should read notes.txt."));
    expect(after.input[4]).toEqual(item("rs_answer", "gAAAA-enc-answer", "The notes mention milk."));
    expect(after.input[5]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Your notes say to remember the milk." }] });
    expect(after.input[6]).toEqual({ role: "user", content: [{ type: "input_text", text: "thanks" }] });
  });
});
