/**
 * `fallback_providers` and credential pools through the real runtime: config.yaml in a temp home,
 * the main endpoint and the fallback as two scripted servers, the session's turns as the editor runs them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../src/agent/events.js";
import type { AgentSession } from "../src/runtime/session.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { runtimeSuite } from "./support/runtime-suite.js";

const suite = runtimeSuite();
let backup: FakeLlm;
let stderr: string[];
beforeEach(async () => {
  backup = await startFakeLlm();
  stderr = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await backup.close();
});

/** A 503 that asks for no wait, so the real retry policy runs without sleeping. */
const unavailable = { status: 503, headers: { "retry-after": "0" } } as const;
const MAIN_KEY = "sk-main-endpoint-secret-0001";
const SECOND_KEY = "sk-main-endpoint-secret-0002";

async function prompt(session: AgentSession, text: string): Promise<{ events: AgentEvent[]; stopReason: string }> {
  const events: AgentEvent[] = [];
  const result = await session.prompt(text, { emit: (event) => events.push(event), signal: new AbortController().signal, asker: { ask: async () => ({ outcome: "deny" }) } as never });
  return { events, stopReason: result.stopReason };
}
const shown = (events: AgentEvent[]) => events.flatMap((event) => (event.type === "message_delta" ? [event.text] : [])).join("");

function configure(extra: string): void {
  suite.home.writeConfig(
    [
      "model:",
      "  provider: custom",
      `  base_url: ${suite.llm.baseUrl}`,
      "  default: test-model",
      `  api_key: ${MAIN_KEY}`,
      "agent:",
      "  api_max_retries: 2",
      extra,
    ].join("\n"),
  );
}

describe("fallback_providers", () => {
  it("answers from the fallback when the main endpoint keeps failing, says so, and keeps the session's model", async () => {
    configure(
      [
        "fallback_providers:",
        // No OPENROUTER_API_KEY in the test environment: skipped with a log line.
        "  - provider: openrouter",
        "    model: anthropic/claude-sonnet-4",
        "  - provider: backup",
        "    model: fb-model",
        `    base_url: ${backup.baseUrl}`,
      ].join("\n"),
    );
    const session = await suite.open();
    suite.llm.push(unavailable, unavailable, { text: "main answers again" });
    backup.push({ text: "the backup's answer" });

    const first = await prompt(session, "hello");
    expect(first.stopReason).toBe("end_turn");
    expect(suite.llm.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
    expect(backup.requests[0]?.body.model).toBe("fb-model");
    expect(backup.requests[0]?.headers.authorization).not.toContain(MAIN_KEY);
    expect(shown(first.events)).toContain("↪ Answering with backup:fb-model (fallback: custom:test-model failed: server error, HTTP 503, 2 attempts)");
    expect(shown(first.events)).toMatch(/the backup's answer$/);
    expect(session.history.at(-1)).toMatchObject({ role: "assistant", content: "the backup's answer" });
    expect(session.model).toBe("test-model");
    expect(session.providerId).toBe("custom");
    expect(stderr.join("")).toMatch(/fallback openrouter:anthropic\/claude-sonnet-4 skipped: .*OPENROUTER_API_KEY/);

    const second = await prompt(session, "and again");
    expect(shown(second.events)).toBe("main answers again");
    expect(suite.llm.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(1);
    expect(stderr.join("")).not.toContain(MAIN_KEY);
  });

  it("reads Hermes' older single fallback_model", async () => {
    configure(["fallback_model:", "  provider: backup", "  model: legacy-model", `  base_url: ${backup.baseUrl}`].join("\n"));
    const session = await suite.open();
    suite.llm.push(unavailable, unavailable);
    backup.push({ text: "legacy fallback" });
    const { events } = await prompt(session, "hi");
    expect(shown(events)).toMatch(/↪ Answering with backup:legacy-model .*legacy fallback$/s);
  });

  it("does not fall back on a bad request", async () => {
    configure(["fallback_providers:", "  - provider: backup", "    model: fb-model", `    base_url: ${backup.baseUrl}`].join("\n"));
    const session = await suite.open();
    suite.llm.push({ status: 400, body: { error: { message: "model test-model does not exist" } } });
    const { events } = await prompt(session, "hi");
    expect(shown(events)).toMatch(/^Error: 400 from custom: the request was rejected/);
    expect(backup.requests).toHaveLength(0);
  });
});

describe("credential pool (model.api_keys)", () => {
  it("moves a rate-limited key's call to the next key, and never logs a key", async () => {
    suite.home.writeConfig(
      ["model:", "  provider: custom", `  base_url: ${suite.llm.baseUrl}`, "  default: test-model", `  api_key: ${MAIN_KEY}`, "  api_keys:", `    - ${SECOND_KEY}`].join("\n"),
    );
    const session = await suite.open();
    suite.llm.push({ status: 429, headers: { "retry-after": "30" } }, { text: "from the second key" }, { text: "still the second" });
    expect(shown((await prompt(session, "one")).events)).toBe("from the second key");
    expect(shown((await prompt(session, "two")).events)).toBe("still the second");
    expect(suite.llm.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${MAIN_KEY}`, `Bearer ${SECOND_KEY}`, `Bearer ${SECOND_KEY}`]);
    const logged = stderr.join("");
    expect(logged).toContain("key 1 of 2 rate-limited (HTTP 429), resting 30 s; trying key 2 of 2");
    expect(logged).not.toContain(MAIN_KEY);
    expect(logged).not.toContain(SECOND_KEY);
  });
});
