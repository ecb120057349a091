import { methods, type SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { afterEach, describe, expect, it } from "vitest";
import { TITLE_PROMPT } from "../src/runtime/title.js";
import { log } from "../src/shared/logger.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import type { InMemoryAgent } from "./support/in-memory-acp.js";

/** Generated session titles (auxiliary.title), session cost (provider-reported or pricing:), auxiliary.compression. */
log.configure({ level: "warn" });
const suite = acpPairSuite();
const extra: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((llm) => llm.close()));
});

async function auxiliaryLlm(): Promise<FakeLlm> {
  const llm = await startFakeLlm();
  extra.push(llm);
  return llm;
}

function config(more: string): void {
  suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n${more}`);
}

async function open(pair: InMemoryAgent): Promise<string> {
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return sessionId;
}

const prompt = (pair: InMemoryAgent, sessionId: string, text: string) =>
  pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

const updatesOf = <K extends string>(pair: InMemoryAgent, kind: K) =>
  pair.updates.map((note: SessionNotification) => note.update).filter((update) => update.sessionUpdate === kind) as Array<Extract<SessionNotification["update"], { sessionUpdate: K }>>;

/** A round trip after which every update sent before it has arrived (`/status` calls no model). */
const flush = (pair: InMemoryAgent, sessionId: string) => prompt(pair, sessionId, "/status");

const agentText = (pair: InMemoryAgent): string =>
  updatesOf(pair, "agent_message_chunk")
    .map((update) => (update.content.type === "text" ? update.content.text : ""))
    .join("");

describe("generated session titles", () => {
  it("keeps the derived title until the title model's answers, then announces and stores the generated one", async () => {
    const titler = await auxiliaryLlm();
    config(`auxiliary:\n  title:\n    base_url: ${titler.baseUrl}\n    model: tiny-titler\n`);
    titler.push({ text: '{"title": "Repair flaky upload test in CI"}' });
    suite.llm.push({ text: "I found the race and fixed it." }, { text: "Second answer." });
    const pair = suite.connect({}, { HERMES_TITLE_GENERATION: "" });
    const sessionId = await open(pair);
    await prompt(pair, sessionId, "please fix the flaky upload test in our ci");
    await pair.sessions.get(sessionId).session.titleSettled();
    await flush(pair, sessionId);

    expect(updatesOf(pair, "session_info_update").map((update) => update.title)).toEqual(["please fix the flaky upload test in our ci", "Repair flaky upload test in CI"]);
    const asked = titler.requests[0]!.body;
    expect(asked.model).toBe("tiny-titler");
    expect(asked.messages[0]).toEqual({ role: "system", content: TITLE_PROMPT });
    expect(asked.messages[1].content).toContain("<user_message>\nplease fix the flaky upload test in our ci\n</user_message>");
    expect(asked.messages[1].content).toContain("I found the race and fixed it.");
    expect(asked.tools).toBeUndefined();
    // the main model never saw the title call, and a second turn asks for no other title
    await prompt(pair, sessionId, "thanks");
    await pair.sessions.get(sessionId).session.titleSettled();
    expect(titler.requests).toHaveLength(1);
    expect(suite.llm.requests).toHaveLength(2);
    const { sessions } = await pair.connection.agent.request(methods.agent.session.list, {});
    expect(sessions.find((listed) => listed.sessionId === sessionId)?.title).toBe("Repair flaky upload test in CI");
  });

  it("keeps the derived title when the title model fails or answers instead of naming", async () => {
    const titler = await auxiliaryLlm();
    config(`auxiliary:\n  title_generation:\n    base_url: ${titler.baseUrl}\n    model: tiny-titler\n`);
    titler.push({ text: "Sure! To fix the login button you should first check the event handler and then the CSS rules for mobile." });
    suite.llm.push({ text: "ok" });
    const pair = suite.connect({}, { HERMES_TITLE_GENERATION: "" });
    const sessionId = await open(pair);
    await prompt(pair, sessionId, "login button broken on mobile");
    await pair.sessions.get(sessionId).session.titleSettled();
    expect(titler.requests).toHaveLength(1);
    expect(updatesOf(pair, "session_info_update").map((update) => update.title)).toEqual(["login button broken on mobile"]);

    const failing = await auxiliaryLlm();
    config(`auxiliary:\n  title:\n    base_url: ${failing.baseUrl}\n    model: tiny-titler\n`);
    failing.push({ status: 500 });
    suite.llm.push({ text: "ok" });
    const other = suite.connect({}, { HERMES_TITLE_GENERATION: "" });
    const second = await open(other);
    await prompt(other, second, "rename the config loader");
    await other.sessions.get(second).session.titleSettled();
    expect(failing.requests).toHaveLength(1);
    expect(updatesOf(other, "session_info_update").map((update) => update.title)).toEqual(["rename the config loader"]);
  });

  it("asks the session's own model when auxiliary.title names none, and never when titles are off", async () => {
    config("");
    suite.llm.push({ text: "answer" }, { when: (body) => body.messages?.[0]?.content === TITLE_PROMPT, text: '{"title":"Speed up CI cache"}' });
    const pair = suite.connect({}, { HERMES_TITLE_GENERATION: "" });
    const sessionId = await open(pair);
    await prompt(pair, sessionId, "make the ci cache faster");
    await pair.sessions.get(sessionId).session.titleSettled();
    await flush(pair, sessionId);
    expect(updatesOf(pair, "session_info_update").at(-1)?.title).toBe("Speed up CI cache");

    config("auxiliary:\n  title:\n    enabled: false\n");
    suite.llm.push({ text: "answer" });
    const off = suite.connect({}, { HERMES_TITLE_GENERATION: "" });
    const quiet = await open(off);
    await prompt(off, quiet, "another task");
    await off.sessions.get(quiet).session.titleSettled();
    expect(suite.llm.requests).toHaveLength(3);
  });
});

describe("session cost", () => {
  it("prices calls from pricing:, takes the provider's reported cost first, sends cost in usage_update, shows it in /status, and keeps it across a restart", async () => {
    config("pricing:\n  test-model: {input: 2, output: 10}\n");
    suite.llm.push(
      { text: "priced", usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } },
      { text: "reported", usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, cost: 0.25 } },
    );
    const pair = suite.connect();
    const sessionId = await open(pair);
    await prompt(pair, sessionId, "first");
    expect(updatesOf(pair, "usage_update").at(-1)?.cost).toEqual({ amount: 0.003, currency: "USD" });
    await prompt(pair, sessionId, "second");
    expect(updatesOf(pair, "usage_update").at(-1)?.cost).toEqual({ amount: 0.253, currency: "USD" });
    await prompt(pair, sessionId, "/status");
    expect(agentText(pair)).toContain("Cost: $0.2530 (USD, this session)");
    await pair.close();

    const again = suite.connect();
    await again.initialize();
    await again.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    await prompt(again, sessionId, "/status");
    expect(agentText(again)).toContain("Cost: $0.2530 (USD, this session)");
  });

  it("sends no cost when nothing priced the calls", async () => {
    config("");
    suite.llm.push({ text: "free?" });
    const pair = suite.connect();
    const sessionId = await open(pair);
    await prompt(pair, sessionId, "hello");
    expect(updatesOf(pair, "usage_update").at(-1)).not.toHaveProperty("cost");
    await prompt(pair, sessionId, "/status");
    expect(agentText(pair)).not.toContain("Cost:");
  });
});

describe("auxiliary.compression", () => {
  it("sends compression summaries to the auxiliary model, not the session's", async () => {
    const summarizer = await auxiliaryLlm();
    config(`compression:\n  protect_first_n: 1\n  protect_last_n: 2\nauxiliary:\n  compression:\n    base_url: ${summarizer.baseUrl}\n    model: summarizer\n`);
    summarizer.push({ text: "Summary: the user asked three questions and got three answers." });
    const pair = suite.connect();
    const sessionId = await open(pair);
    for (const word of ["one", "two", "three", "four"]) {
      suite.llm.push({ text: `answer ${word} ${"detail ".repeat(50)}` });
      await prompt(pair, sessionId, `question ${word}`);
    }
    await prompt(pair, sessionId, "/compress");
    expect(agentText(pair)).toContain("Context compressed");
    expect(summarizer.requests).toHaveLength(1);
    expect(summarizer.requests[0]!.body.model).toBe("summarizer");
    expect(suite.llm.requests).toHaveLength(4);
    suite.llm.push({ text: "after" });
    await prompt(pair, sessionId, "and now?");
    expect(JSON.stringify(suite.llm.requests.at(-1)!.body.messages)).toContain("the user asked three questions");
  });
});
