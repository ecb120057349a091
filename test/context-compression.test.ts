import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../src/llm/types.js";
import type { PermissionAsker } from "../src/runtime/approvals.js";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentSession } from "../src/runtime/session.js";
import { fileTracker } from "../src/tools/file-tracker/file-tracker.js";
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "./support/fake-llm.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * The system prompt and context compression through the real runtime: a session built from a temp
 * HERMES_HOME, talking to the scripted model server over HTTP, stored in a real state.db.
 */

const denyAll: PermissionAsker = {
  askCommand: async () => ({ outcome: "deny" }) as never,
  askEdit: async () => ({ outcome: "deny" }) as never,
};

let llm: FakeLlm;
let home: TempHome;
let runtime: Runtime;
const sessions: AgentSession[] = [];

function configure(extra = ""): void {
  home.writeConfig(
    [
      "model:",
      "  provider: custom",
      `  base_url: ${llm.baseUrl}`,
      "  default: test-model",
      "  context_length: 100000",
      "compression:",
      "  protect_first_n: 2",
      "  protect_last_n: 4",
      extra,
    ].join("\n"),
  );
}

beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome();
  mkdirSync(join(home.workspace, ".git"));
  configure();
  runtime = new Runtime({ home: home.home, env: home.env() });
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.dispose()));
  runtime.directory.close();
  await llm.close();
  home.cleanup();
});

async function open(): Promise<AgentSession> {
  const session = await runtime.sessions.create(home.workspace);
  sessions.push(session);
  return session;
}

async function ask(session: AgentSession, text: string): Promise<void> {
  const result = await session.prompt(text, { emit: () => {}, signal: new AbortController().signal, asker: denyAll });
  expect(result.stopReason).toBe("end_turn");
}

const chatRequests = (): RecordedRequest[] => llm.requests.filter((request) => request.path.endsWith("/chat/completions"));
const isSummaryRequest = (request: RecordedRequest): boolean => String(request.body.messages[0]?.content).includes("handoff summaries");
const sentMessages = (request: RecordedRequest): ChatMessage[] => request.body.messages.slice(1);

describe("system prompt through the runtime", () => {
  it("carries SOUL.md and the project's AGENTS.md, is sent byte for byte every call, and a restored session reuses it", async () => {
    writeFileSync(join(home.home, "SOUL.md"), "You are the test soul.");
    writeFileSync(join(home.workspace, "AGENTS.md"), "Always run `make check`.");
    const session = await open();
    expect(session.systemPrompt.startsWith("You are the test soul.")).toBe(true);
    expect(session.systemPrompt).toContain("## AGENTS.md\n\nAlways run `make check`.");
    expect(session.systemPrompt).toContain(`Working directory: ${home.workspace}`);

    llm.push({ text: "one" }, { text: "two" });
    await ask(session, "first");
    await ask(session, "second");
    const [first, second] = chatRequests();
    expect(first?.body.messages[0]).toEqual({ role: "system", content: session.systemPrompt });
    expect(second?.body.messages[0].content).toBe(first?.body.messages[0].content);
    expect(runtime.directory.get(session.id)?.systemPrompt).toBe(session.systemPrompt);

    // Files change on disk; the restored session keeps the prompt it was started with.
    writeFileSync(join(home.home, "SOUL.md"), "A different soul.");
    writeFileSync(join(home.workspace, "AGENTS.md"), "Different rules.");
    const restored = await runtime.sessions.restore(session.id);
    if (restored) sessions.push(restored);
    expect(restored?.systemPrompt).toBe(session.systemPrompt);
  });
});

describe("context compression through the runtime", () => {
  it("summarizes the middle with the model when the reported prompt passes the threshold; the stored history stays whole", async () => {
    const session = await open();
    for (let i = 1; i <= 5; i++) {
      // The fifth answer reports a prompt of 60,000 tokens: past 50 % of the 100,000-token window.
      llm.push({ text: `answer ${i}`, ...(i === 5 ? { usage: { prompt_tokens: 60_000 } } : {}) });
      await ask(session, `question ${i}`);
    }
    expect(llm.requests.some(isSummaryRequest)).toBe(false);
    expect(session.contextUsage()).toMatchObject({ size: 100_000, window: 100_000, threshold: 0.5, enabled: true });
    expect(session.contextUsage().used).toBeGreaterThan(60_000);

    llm.push({ text: "## Goal\nAnswer questions\n## Progress\nSUMMARY-ONE" }, { text: "answer 6" });
    await ask(session, "question 6");

    const requests = chatRequests();
    const summaryRequest = requests.at(-2) as RecordedRequest;
    expect(isSummaryRequest(summaryRequest)).toBe(true);
    expect(summaryRequest.body.tools).toBeUndefined();
    const transcript = String(summaryRequest.body.messages[1].content);
    expect(transcript).toContain("## Next Steps");
    expect(transcript).toContain("[USER]: question 2");
    expect(transcript).toContain("[USER]: question 4");
    expect(transcript).not.toContain("question 1");
    expect(transcript).not.toContain("question 5");

    // The model got head (2) + summary + tail (4): [q1, a1, summary, a4, q5, a5, q6].
    const sent = sentMessages(requests.at(-1) as RecordedRequest);
    expect(sent.map((m) => (typeof m.content === "string" && m.content.includes("SUMMARY-ONE") ? "summary" : m.content))).toEqual([
      "question 1",
      "answer 1",
      "summary",
      "answer 4",
      "question 5",
      "answer 5",
      "question 6",
    ]);
    expect(sent[2]?.role).toBe("user");

    // History and state.db keep every message; no summary is stored.
    const expected = Array.from({ length: 6 }, (_, i) => [`question ${i + 1}`, `answer ${i + 1}`]).flat();
    expect(session.history.map((m) => m.content)).toEqual(expected);
    expect(runtime.directory.transcript(session.id).map((entry) => entry.message.content)).toEqual(expected);

    // The summary is reused on the next call (no new summary request) and usage drops.
    expect(session.contextUsage().used).toBeLessThan(50_000);
    llm.push({ text: "answer 7" });
    await ask(session, "question 7");
    expect(chatRequests().filter(isSummaryRequest)).toHaveLength(1);
    expect(sentMessages(chatRequests().at(-1) as RecordedRequest).slice(0, 3).map((m) => String(m.content).includes("SUMMARY-ONE"))).toEqual([false, false, true]);
  });

  it("never separates a tool call from its results at the tail boundary", async () => {
    for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(home.workspace, name), `contents of ${name}\n`);
    const session = await open();
    for (let i = 1; i <= 3; i++) {
      llm.push({ text: `answer ${i}` });
      await ask(session, `question ${i}`);
    }
    llm.push(
      { tool_calls: ["a.txt", "b.txt", "c.txt"].map((path) => ({ name: "read_file", arguments: { path } })) },
      { text: "answer 4", usage: { prompt_tokens: 60_000 } },
    );
    await ask(session, "question 4");
    // History: q1 a1 q2 a2 q3 a3 q4 A(3 calls) t t t a4 — the last 4 of it plus q5 would start on a tool result.
    llm.push({ text: "TOOL-SUMMARY" }, { text: "answer 5" });
    await ask(session, "question 5");

    expect(isSummaryRequest(chatRequests().at(-2) as RecordedRequest)).toBe(true);
    const sent = sentMessages(chatRequests().at(-1) as RecordedRequest);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "tool", "tool", "assistant", "user"]);
    const calls = (sent[3] as { tool_calls: Array<{ id: string }> }).tool_calls.map((call) => call.id);
    expect(sent.slice(4, 7).map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(calls);
    expect(String(sent[2]?.content)).toContain("TOOL-SUMMARY");
    expect(session.history).toHaveLength(14);
  });

  it("compress() forces a compression now, folds the earlier summary in, reports A -> B, and resets read dedup", async () => {
    const session = await open();
    for (let i = 1; i <= 8; i++) {
      llm.push({ text: `answer ${i}` });
      await ask(session, `${"details ".repeat(100)}question ${i}`);
    }
    const tracker = fileTracker(session.toolState);
    tracker.recordRead(join(home.workspace, "a.ts"), 1, 500, { hash: "h" });
    expect(tracker.isUnchangedRead(join(home.workspace, "a.ts"), 1, 500, { hash: "h" })).toBe(true);

    llm.push({ text: "FORCED-SUMMARY" });
    const report = await session.compress(new AbortController().signal);
    expect(report.compressed).toBe(true);
    // Head [q1, a1]; the summary rides in front of q7 (neither role would alternate): [q1, a1, q7', a7, q8, a8].
    expect(report.text).toMatch(/^16 -> 6 messages, ~[\d,]+ -> ~[\d,]+ tokens$/);
    expect(report.afterTokens).toBeLessThan(report.beforeTokens);
    expect(tracker.isUnchangedRead(join(home.workspace, "a.ts"), 1, 500, { hash: "h" })).toBe(false);
    expect(session.history).toHaveLength(16);

    llm.push({ text: "answer 9" });
    await ask(session, "question 9");
    const sent = sentMessages(chatRequests().at(-1) as RecordedRequest);
    expect(sent).toHaveLength(7);
    expect(String(sent[2]?.content)).toContain("FORCED-SUMMARY");
    expect(String(sent[2]?.content)).toMatch(/question 7$/);

    // A second forced compression sends the earlier summary to be folded in.
    llm.push({ text: "SECOND-SUMMARY" });
    await session.compress(new AbortController().signal);
    const foldRequest = chatRequests().at(-1) as RecordedRequest;
    expect(isSummaryRequest(foldRequest)).toBe(true);
    expect(String(foldRequest.body.messages[1].content)).toContain("EARLIER SUMMARY");
    expect(String(foldRequest.body.messages[1].content)).toContain("FORCED-SUMMARY");
  });

  it("compress() rejects with the provider's error and leaves what the model sees unchanged", async () => {
    const session = await open();
    for (let i = 1; i <= 8; i++) {
      llm.push({ text: `answer ${i}` });
      await ask(session, `question ${i}`);
    }
    llm.push({ status: 401, body: { error: { message: "bad key" } } });
    await expect(session.compress(new AbortController().signal)).rejects.toThrow(/Could not compress the conversation/);
    llm.push({ text: "answer 9" });
    await ask(session, "question 9");
    expect(sentMessages(chatRequests().at(-1) as RecordedRequest)).toHaveLength(17);
  });
});
