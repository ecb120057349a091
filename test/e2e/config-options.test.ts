import { methods, type SessionConfigOption, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { beforeEach, describe, expect, it } from "vitest";
import { spawnAgent } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";

/** Issue 5 ACP side: the model picker, reasoning effort and mode as config options; usage updates. */
const suite = e2eSuite();

beforeEach(async () => {
  suite.home.writeConfig(
    [
      "model:",
      "  provider: local",
      "  default: gpt-5",
      "providers:",
      "  local:",
      `    base_url: ${suite.llm.baseUrl}`,
      "    models: [gpt-5, small-model]",
      "",
    ].join("\n"),
  );
  suite.agent = spawnAgent({ env: suite.home.env() });
  await suite.agent!.initialize();
});

const option = (options: SessionConfigOption[] | null | undefined, id: string) => options?.find((o) => o.id === id);
const updates = (kind: SessionUpdate["sessionUpdate"]) => suite.agent!.updates.map((n) => n.update).filter((u) => u.sessionUpdate === kind);

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("config options", () => {
  it("offers model (configured default first), reasoning effort and mode, and switches the model for the next call", async () => {
    const created = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    const model = option(created.configOptions, "model");
    expect(model).toMatchObject({ category: "model", currentValue: "custom:local:gpt-5" });
    const values = model && "options" in model ? (model.options as Array<{ value: string }>).map((o) => o.value) : [];
    expect(values.slice(0, 2)).toEqual(["custom:local:gpt-5", "custom:local:small-model"]);
    expect(option(created.configOptions, "reasoning_effort")).toMatchObject({ category: "thought_level" });
    expect(option(created.configOptions, "mode")).toMatchObject({ category: "mode", currentValue: "default" });

    const changed = await suite.agent!.connection.agent.request(methods.agent.session.setConfigOption, {
      sessionId: created.sessionId,
      configId: "model",
      value: "custom:local:small-model",
    });
    expect(option(changed.configOptions, "model")).toMatchObject({ currentValue: "custom:local:small-model" });
    expect(option(changed.configOptions, "reasoning_effort")).toBeUndefined();
    suite.llm.push({ text: "hi" });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId: created.sessionId, prompt: [{ type: "text", text: "hello" }] });
    expect(suite.llm.requests.at(-1)?.body.model).toBe("small-model");
  });

  it("sends the reasoning effort chosen for a model that takes one", async () => {
    const { sessionId } = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    await suite.agent!.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "reasoning_effort", value: "high" });
    suite.llm.push({ text: "thought hard" });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "think" }] });
    expect(suite.llm.requests.at(-1)?.body.reasoning_effort).toBe("high");
  });

  it("rejects unknown values as invalid params and leaves the session unchanged", async () => {
    const { sessionId } = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    for (const [configId, value] of [["model", "local:nope"], ["mode", "yolo"], ["reasoning_effort", "max"], ["colour", "red"]]) {
      await expect(suite.agent!.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: configId!, value: value! })).rejects.toMatchObject({
        code: -32602,
      });
    }
    suite.llm.push({ text: "same" });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "x" }] });
    expect(suite.llm.requests.at(-1)?.body.model).toBe("gpt-5");
  });

  it("refuses to switch the model of a busy session, and keeps the legacy session/set_model", async () => {
    const { sessionId } = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "", chunks: ["slow ", "answer"], delayMs: 600_000 });
    const running = suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "slow" }] });
    await until(() => updates("agent_message_chunk").length > 0);
    await expect(
      suite.agent!.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "local:small-model" }),
    ).rejects.toMatchObject({ code: -32603 });
    await suite.agent!.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    await running;

    await suite.agent!.connection.agent.request("session/set_model", { sessionId, modelId: "local:small-model" });
    suite.llm.push({ text: "switched" });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "now" }] });
    expect(suite.llm.requests.at(-1)?.body.model).toBe("small-model");
  });

  it("sends usage_update at session start and after every turn, and config_option_update after /model", async () => {
    const { sessionId } = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    await until(() => updates("usage_update").length === 1);
    const first = updates("usage_update")[0] as { used: number; size: number };
    expect(first.size).toBeGreaterThan(0);
    expect(first.used).toBeGreaterThan(0);
    // After a turn the provider's own count of the prompt is the base of the estimate.
    suite.llm.push({ text: "a fairly long answer ".repeat(20), usage: { prompt_tokens: 5000, completion_tokens: 100, total_tokens: 5100 } });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "talk" }] });
    await until(() => updates("usage_update").length === 2);
    const second = updates("usage_update")[1] as { used: number; size: number };
    expect(second.used).toBeGreaterThan(5000);
    expect(second.size).toBe(first.size);

    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/model local:small-model" }] });
    await until(() => updates("config_option_update").length > 0);
    const latest = updates("config_option_update").at(-1) as { configOptions: SessionConfigOption[] };
    expect(option(latest.configOptions, "model")).toMatchObject({ currentValue: "custom:local:small-model" });
  });

  it("keeps a switched model across a restart", async () => {
    const { sessionId } = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    await suite.agent!.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "local:small-model" });
    suite.llm.push({ text: "first" });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
    await suite.agent!.close();

    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent!.initialize();
    const resumed = await suite.agent!.connection.agent.request(methods.agent.session.resume, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    expect(option(resumed.configOptions, "model")).toMatchObject({ currentValue: "custom:local:small-model" });
    suite.llm.push({ text: "second" });
    await suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(suite.llm.requests.at(-1)?.body.model).toBe("small-model");
  });
});
