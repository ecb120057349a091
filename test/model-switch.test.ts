import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionAsker } from "../src/runtime/approvals.js";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentSession } from "../src/runtime/session.js";
import { HermesError } from "../src/shared/errors.js";
import { startFakeAnthropic, type FakeAnthropic } from "./support/fake-anthropic.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * Providers through the real runtime: a session that starts on an OpenAI-compatible endpoint and
 * switches, between turns, to an Anthropic-style one (both scripted servers over real HTTP), the
 * model catalog behind the picker, and what state.db records.
 */

const denyAll: PermissionAsker = {
  askCommand: async () => ({ outcome: "deny" }) as never,
  askEdit: async () => ({ outcome: "deny" }) as never,
};

let llm: FakeLlm;
let claude: FakeAnthropic;
let home: TempHome;
let runtime: Runtime;
let session: AgentSession | undefined;

beforeEach(async () => {
  llm = await startFakeLlm();
  claude = await startFakeAnthropic([], { models: [{ type: "model", id: "claude-live", max_input_tokens: 200_000 }] });
  home = createTempHome();
  home.writeConfig(
    [
      "model:",
      "  provider: custom",
      `  base_url: ${llm.baseUrl}`,
      "  default: test-model",
      "providers:",
      "  claude:",
      `    base_url: ${claude.baseUrl}`,
      "    api_mode: anthropic_messages",
      "    api_key: sk-ant-entry-secret",
      "    models: [claude-x]",
    ].join("\n"),
  );
  runtime = new Runtime({ home: home.home, env: home.env() });
});

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  runtime.directory.close();
  await Promise.all([llm.close(), claude.close()]);
  home.cleanup();
});

async function ask(text: string): Promise<string> {
  let answer = "";
  const result = await session!.prompt(text, {
    emit: (event) => {
      if (event.type === "message_delta") answer += event.text;
    },
    signal: new AbortController().signal,
    asker: denyAll,
  });
  expect(result.stopReason).toBe("end_turn");
  return answer;
}

describe("model switching through the runtime", () => {
  it("moves a session from chat completions to the Messages API between turns, history and prompt intact", async () => {
    session = await runtime.sessions.create(home.workspace);
    llm.push({ text: "hello from the first model" });
    expect(await ask("hi")).toBe("hello from the first model");

    const resolved = await runtime.sessions.switchModel(session, "claude:claude-x");
    expect(resolved).toMatchObject({ provider: "claude", model: "claude-x", apiMode: "anthropic_messages" });
    expect(session.model).toBe("claude-x");
    expect(session.systemPrompt).toMatch(/\nModel: claude-x\nProvider: claude$/);
    await session.saved();
    expect(runtime.directory.get(session.id)).toMatchObject({ model: "claude-x", provider: "claude" });

    writeFileSync(join(home.workspace, "notes.txt"), "remember the milk\n");
    claude.push({ tool_use: [{ id: "toolu_read", name: "read_file", input: { path: "notes.txt" } }] }, { text: "It says to remember the milk." });
    expect(await ask("what do my notes say?")).toBe("It says to remember the milk.");

    const [first, second] = claude.messageBodies();
    expect(first.system).toEqual([{ type: "text", text: session.systemPrompt, cache_control: { type: "ephemeral" } }]);
    expect(first.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(first.messages[1].content[0]).toMatchObject({ type: "text", text: "hello from the first model" });
    expect(first.tools.map((tool: { name: string }) => tool.name)).toContain("read_file");
    expect(second.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    const result = second.messages[4].content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_read" });
    expect(JSON.stringify(result.content)).toContain("remember the milk");
    expect(claude.requests[0]?.headers["x-api-key"]).toBe("sk-ant-entry-secret");
    expect(llm.requests.filter((request) => request.path.endsWith("/chat/completions"))).toHaveLength(1);
  });

  it("setModel without a prompt rewrites only the Model and Provider lines of the frozen prompt", async () => {
    session = await runtime.sessions.create(home.workspace);
    const before = session.systemPrompt;
    const resolved = runtime.config.resolveModel("claude:claude-x", session.resolved);
    session.setModel(resolved, { id: "claude", stream: async function* () {} });
    expect(session.systemPrompt).toBe(before.replace(/\nModel: test-model\nProvider: custom$/, "\nModel: claude-x\nProvider: claude"));
    expect(session.providerId).toBe("claude");
  });

  it("takes a bare model name as a model of the session's current provider", async () => {
    session = await runtime.sessions.create(home.workspace);
    await runtime.sessions.switchModel(session, "claude:claude-x");
    expect(await runtime.sessions.switchModel(session, "claude-live")).toMatchObject({ provider: "claude", model: "claude-live" });
    expect(await runtime.sessions.switchModel(session, "custom:other-model")).toMatchObject({ provider: "custom", baseUrl: llm.baseUrl, model: "other-model" });
  });

  it("refuses a provider without credentials as invalid_params and leaves the session unchanged", async () => {
    session = await runtime.sessions.create(home.workspace);
    const before = session.systemPrompt;
    const error = await runtime.sessions.switchModel(session, "anthropic:claude-sonnet-4-6").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HermesError);
    expect((error as HermesError).code).toBe("invalid_params");
    expect((error as HermesError).message).toContain("ANTHROPIC_API_KEY");
    expect(session.model).toBe("test-model");
    expect(session.systemPrompt).toBe(before);
    await expect(runtime.sessions.switchModel(session, "  ")).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("builds the picker from declared and live models, the configured default first, without fetching at session start", async () => {
    session = await runtime.sessions.create(home.workspace);
    expect(llm.requests).toHaveLength(0);
    expect(claude.requests).toHaveLength(0);
    expect(runtime.catalogSnapshot().map((entry) => entry.id)).toEqual(["custom:test-model", "custom:claude:claude-x"]);
    const entries = await runtime.catalog();
    expect(entries.map((entry) => entry.id)).toEqual(["custom:test-model", "custom:fake-model", "custom:claude:claude-x", "custom:claude:claude-live"]);
    expect(entries.find((entry) => entry.id === "custom:claude:claude-live")?.contextLength).toBe(200_000);
    await runtime.sessions.switchModel(session, "claude:claude-live");
    expect(session.contextUsage().size).toBe(200_000);
  });
});
