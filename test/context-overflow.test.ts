import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionAsker } from "../src/runtime/approvals.js";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentSession } from "../src/runtime/session.js";
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "./support/fake-llm.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * A context overflow through the real runtime: the provider's 400 names the real window; the
 * session's compressor is forced (a summary by the model), the call is sent again and answers; the
 * window is learned, written to HERMES_HOME/cache/context_lengths.json, used by the compression
 * threshold from then on, and read back by the next process (config.yaml's context_length still wins).
 */

const denyAll: PermissionAsker = {
  askCommand: async () => ({ outcome: "deny" }) as never,
  askEdit: async () => ({ outcome: "deny" }) as never,
};

let llm: FakeLlm;
let home: TempHome;
const runtimes: Runtime[] = [];
const sessions: AgentSession[] = [];

function configure(extra: string[] = []): void {
  home.writeConfig(
    ["model:", "  provider: custom", `  base_url: ${llm.baseUrl}`, "  default: test-model", ...extra, "compression:", "  protect_first_n: 2", "  protect_last_n: 4"].join("\n"),
  );
}

beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome();
  mkdirSync(join(home.workspace, ".git"));
  configure();
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.dispose()));
  for (const runtime of runtimes.splice(0)) runtime.directory.close();
  await llm.close();
  home.cleanup();
});

async function open(): Promise<AgentSession> {
  const runtime = new Runtime({ home: home.home, env: home.env() });
  runtimes.push(runtime);
  const session = await runtime.sessions.create(home.workspace);
  sessions.push(session);
  return session;
}

async function ask(session: AgentSession, text: string): Promise<string> {
  let shown = "";
  const result = await session.prompt(text, {
    emit: (event) => {
      if (event.type === "message_delta") shown += event.text;
    },
    signal: new AbortController().signal,
    asker: denyAll,
  });
  expect(result.stopReason).toBe("end_turn");
  return shown;
}

const chatRequests = (): RecordedRequest[] => llm.requests.filter((request) => request.path.endsWith("/chat/completions"));
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request JSON
const isSummary = (body: any): boolean => String(body?.messages?.[0]?.content).includes("handoff summaries");
const OVERFLOW = {
  status: 400,
  body: {
    error: {
      message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    },
  },
};
const cacheFile = (): string => join(home.home, "cache", "context_lengths.json");

describe("a context overflow through the runtime", () => {
  it("compresses, retries once with the summary, learns and persists the window, and uses it from then on", async () => {
    const session = await open();
    for (let i = 1; i <= 5; i++) {
      llm.push({ text: `answer ${i}` });
      await ask(session, `${"details ".repeat(200)}question ${i}`);
    }
    expect(session.contextUsage().size).toBe(128_000); // the default: nothing known yet

    llm.push(OVERFLOW, { when: isSummary, text: "## Goal\nAnswer questions\n## Progress\nSUMMARY-OVERFLOW" }, { text: "answer 6" });
    const shown = await ask(session, "question 6");
    expect(shown).toBe("answer 6");

    const requests = chatRequests();
    const [refused, summary, retried] = requests.slice(-3) as [RecordedRequest, RecordedRequest, RecordedRequest];
    expect(isSummary(summary.body)).toBe(true);
    // smaller: head (2) + summary + tail (4) instead of all 11 messages
    expect(retried.body.messages).toHaveLength(1 + 7);
    expect(refused.body.messages).toHaveLength(1 + 11);
    expect(JSON.stringify(retried.body.messages).length).toBeLessThan(JSON.stringify(refused.body.messages).length);
    expect(JSON.stringify(retried.body.messages)).toContain("SUMMARY-OVERFLOW");
    expect(retried.body.messages.at(-1)).toEqual({ role: "user", content: "question 6" });
    expect(session.history).toHaveLength(12); // stored history stays whole

    // learned: in memory and on disk
    expect(session.contextUsage().size).toBe(8192);
    expect(JSON.parse(readFileSync(cacheFile(), "utf8"))).toEqual({ custom: { "test-model": 8192 } });

    // the threshold now works with 8,192 tokens: a ~5,000-token question is compressed before it is sent
    llm.push({ when: isSummary, text: "SUMMARY-TWO" }, { text: "answer 7" });
    await ask(session, `${"more ".repeat(4_000)}question 7`);
    expect(chatRequests().filter((request) => isSummary(request.body))).toHaveLength(2);
    expect(JSON.stringify(chatRequests().at(-1)?.body.messages)).toContain("SUMMARY-TWO");
  });

  it("reads the learned window in the next process; model.context_length in config.yaml still wins", async () => {
    mkdirSync(join(home.home, "cache"), { recursive: true });
    writeFileSync(cacheFile(), JSON.stringify({ custom: { "test-model": 16_384 } }));
    expect((await open()).contextUsage().size).toBe(16_384);

    configure(["  context_length: 100000"]);
    expect((await open()).contextUsage().size).toBe(100_000);
  });

  it("ignores a broken cache file and replaces it when it learns", async () => {
    mkdirSync(join(home.home, "cache"), { recursive: true });
    writeFileSync(cacheFile(), "{not json");
    const session = await open();
    expect(session.contextUsage().size).toBe(128_000);
    llm.push(OVERFLOW, { text: "answer" });
    // nothing to compress in a one-message conversation: the turn ends with the advice
    const shown = await ask(session, "question");
    expect(shown).toMatch(/no longer fits test-model's context window; run \/compress/);
    expect(JSON.parse(readFileSync(cacheFile(), "utf8"))).toEqual({ custom: { "test-model": 8192 } });
  });
});
