import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentSession } from "../src/runtime/session.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * Hermes' background review, end to end on the real runtime: after a turn, the session's model
 * is shown the conversation with the review prompt and may save memories; the user's turns are
 * never delayed by it, and what it saved is told at the start of the next turn.
 */
let llm: FakeLlm;
let home: TempHome;
let runtime: Runtime;
const sessions: AgentSession[] = [];

beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome({ baseUrl: llm.baseUrl });
  home.writeConfig(`model:\n  provider: custom\n  base_url: ${llm.baseUrl}\n  default: test-model\nmemory:\n  nudge_interval: 1\nskills:\n  creation_nudge_interval: 0\n`);
  // The suite default turns reviews off; here config.yaml decides.
  runtime = new Runtime({ home: home.home, env: home.env({ HERMES_BACKGROUND_REVIEW: "" }) });
});

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  runtime.directory.close();
  await llm.close();
  home.cleanup();
});

async function open(): Promise<AgentSession> {
  const session = await runtime.sessions.create(home.workspace);
  sessions.push(session);
  return session;
}

function ask(session: AgentSession, text: string, notices: string[] = []) {
  return session.prompt(text, {
    emit: () => {},
    signal: new AbortController().signal,
    asker: { ask: async () => ({ outcome: "deny" }) } as never,
    ports: { notifyUser: (line) => notices.push(line) },
  });
}

const userFile = () => join(home.home, "memories", "USER.md");
type Sent = { role: string; content: unknown; tool_call_id?: string };
const lastUserText = (index: number): string => {
  const messages = llm.requests[index]!.body.messages as Sent[];
  return String(messages.filter((message) => message.role === "user").at(-1)?.content ?? "");
};

describe("background review", () => {
  it("saves a memory after the turn has answered, outside the session's history, and says so first in the next turn", async () => {
    const session = await open();
    llm.push(
      { text: "Sure, short answers from now on." },
      { tool_calls: [{ id: "r1", name: "memory", arguments: { target: "user", action: "add", content: "Wants short answers." } }] },
      { text: "Saved." },
      { text: "Here is the short answer." },
    );
    const first = await ask(session, "Please keep your answers short.");
    expect(first.stopReason).toBe("end_turn");
    // The answer came back before the review asked the model anything.
    expect(llm.requests).toHaveLength(1);
    await session.backgroundReview();
    expect(llm.requests).toHaveLength(3);
    expect(readFileSync(userFile(), "utf8")).toBe("Wants short answers.");

    const review = llm.requests[1]!.body;
    const turn = llm.requests[0]!.body;
    // Same system prompt and tool list as the session's own call (the provider's prompt cache holds).
    expect(review.messages[0]).toEqual(turn.messages[0]);
    expect(review.tools).toEqual(turn.tools);
    expect(lastUserText(1)).toContain("Review the conversation above");
    expect(lastUserText(1)).toContain("Nothing to save.");
    // The session itself never saw the review.
    expect(session.history.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(session.systemPrompt).not.toContain("Wants short answers.");

    const notices: string[] = [];
    await ask(session, "What is 2+2?", notices);
    expect(notices).toEqual(["💾 Background review: User profile updated"]);
    const next = llm.requests[3]!.body.messages as Sent[];
    expect(next.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(JSON.stringify(next)).not.toContain("Review the conversation above");
    // state.db has the session's four messages and nothing of the review.
    expect(runtime.directory.messageRows(session.id)).toHaveLength(4);
  });

  it("gives way to the user's next prompt: a review still waiting on the model is cancelled, the prompt is answered at once", async () => {
    const session = await open();
    llm.push({ text: "Noted." }, { hang: "headers" }, { text: "Answer to the second prompt." });
    await ask(session, "I work on the payments service.");
    await vi.waitFor(() => expect(llm.requests).toHaveLength(2));
    const notices: string[] = [];
    const second = await ask(session, "And now?", notices);
    expect(second.stopReason).toBe("end_turn");
    expect(session.history.at(-1)).toMatchObject({ role: "assistant", content: "Answer to the second prompt." });
    expect(notices).toEqual([]);
    expect(existsSync(userFile())).toBe(false);
  });

  it("runs only the memory and skill tools: anything else the review asks for is refused", async () => {
    const session = await open();
    llm.push(
      { text: "ok" },
      { tool_calls: [{ id: "w1", name: "write_file", arguments: { path: join(home.workspace, "pwned.txt"), content: "x" } }] },
      { text: "Nothing to save." },
    );
    await ask(session, "hello");
    await session.backgroundReview();
    expect(existsSync(join(home.workspace, "pwned.txt"))).toBe(false);
    const refusal = (llm.requests[2]!.body.messages as Sent[]).find((message) => message.tool_call_id === "w1");
    expect(refusal?.content).toContain("not available during a background review");
  });

  it("keeps to Plan mode: a skill change the session could not make, its review cannot make either", async () => {
    const session = await open();
    session.approvals.mode = "plan";
    const skill = `---\nname: deploy\ndescription: Ship it.\n---\n1. Run make deploy.\n`;
    llm.push(
      { text: "Here is the plan." },
      { tool_calls: [{ id: "s1", name: "skill_manage", arguments: { action: "create", name: "deploy", content: skill } }] },
      { text: "Nothing to save." },
    );
    await ask(session, "Plan the deploy.");
    await session.backgroundReview();
    expect(existsSync(join(home.home, "skills", "deploy"))).toBe(false);
    const refusal = (llm.requests[2]!.body.messages as Sent[]).find((message) => message.tool_call_id === "s1");
    expect(refusal?.content).toContain("Blocked in Plan mode");
  });

  it("does not run when config.yaml switches it off", async () => {
    home.writeConfig(`model:\n  provider: custom\n  base_url: ${llm.baseUrl}\n  default: test-model\nmemory:\n  nudge_interval: 1\nauxiliary:\n  background_review:\n    enabled: false\n`);
    const session = await open();
    llm.push({ text: "ok" });
    await ask(session, "hello");
    await session.backgroundReview();
    expect(llm.requests).toHaveLength(1);
  });

  it("never starts once the session has closed, even when the turn's answer lands after the close", async () => {
    const session = await open();
    // streamed in three pieces with pauses between them: the close comes while the answer is arriving
    llm.push({ text: "one two three four five six seven", delayMs: 150 }, { tool_calls: [{ id: "r1", name: "memory", arguments: { target: "user", action: "add", content: "Closed sessions review." } }] }, { text: "Saved." });
    const answered = ask(session, "hello");
    await vi.waitFor(() => expect(llm.requests).toHaveLength(1));
    const closed = session.dispose();
    sessions.splice(sessions.indexOf(session), 1);
    expect((await answered).stopReason).toBe("end_turn");
    await closed;
    await session.backgroundReview();
    expect(llm.requests).toHaveLength(1);
    expect(existsSync(userFile())).toBe(false);
  });

  it("is cancelled when the session closes", async () => {
    const session = await open();
    llm.push({ text: "ok" }, { hang: "headers" });
    await ask(session, "hello");
    await vi.waitFor(() => expect(llm.requests).toHaveLength(2));
    await session.dispose();
    sessions.splice(sessions.indexOf(session), 1);
    await session.backgroundReview();
    await vi.waitFor(() => expect(llm.inFlight()).toBe(0));
  });
});
