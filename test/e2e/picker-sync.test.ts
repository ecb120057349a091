import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, it } from "vitest";
import { spawnAgent } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";

/** One entry point per change: whichever way the mode or model changes, the other picker hears of it. */
const suite = e2eSuite();

async function open(): Promise<string> {
  suite.agent = spawnAgent({ env: suite.home.env() });
  await suite.agent.initialize();
  const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return sessionId;
}

/** Resolves once an update of `kind` satisfying `test` arrived (before the change, none could). */
async function updateWhere<K extends SessionUpdate["sessionUpdate"]>(kind: K, test: (update: Extract<SessionUpdate, { sessionUpdate: K }>) => boolean): Promise<void> {
  for (;;) {
    const seen = suite.agent!.updates.map((n) => n.update).filter((u): u is Extract<SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
    if (seen.some(test)) return;
    await new Promise((done) => setTimeout(done, 10));
  }
}

const current = (options: Array<{ id: string; currentValue?: unknown }>, id: string): unknown => options.find((o) => o.id === id)?.currentValue;

describe("pickers in sync", () => {
  it("session/set_mode is followed by config_option_update with the new mode", async () => {
    const sessionId = await open();
    await suite.agent!.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await updateWhere("config_option_update", (u) => current(u.configOptions, "mode") === "plan");
  });

  it("the mode config option is followed by current_mode_update", async () => {
    const sessionId = await open();
    await suite.agent!.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "accept_edits" });
    await updateWhere("current_mode_update", (u) => u.currentModeId === "accept_edits");
  });

  it("legacy session/set_model is followed by config_option_update with the new model", async () => {
    const sessionId = await open();
    await suite.agent!.connection.agent.request("session/set_model", { sessionId, modelId: "custom:other-model" });
    await updateWhere("config_option_update", (u) => current(u.configOptions, "model") === "custom:other-model");
  });
});
