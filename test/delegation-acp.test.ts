import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { methods, type RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../src/runtime/delegation/acp-child.js";
import { log } from "../src/shared/logger.js";
import { isGroupAlive, trackedGroups } from "../src/tools/process/process-group.js";
import { systemPromptOf, lastUserText } from "./support/fake-llm.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { type InMemoryAgent } from "./support/in-memory-acp.js";
import { sleepers } from "./support/processes.js";

/**
 * External ACP agents as delegate_task children that misbehave: a scripted agent on stdio
 * (`support/fake-acp-agent.mjs`, a real process) asking for other sessions, for fs it was not
 * offered, flooding its answer, or never answering; and what it is started with.
 */
log.configure({ level: "error" });
const FAKE_AGENT = join(dirname(fileURLToPath(import.meta.url)), "support", "fake-acp-agent.mjs");
const suite = acpPairSuite();

const parent = (body: unknown) => !systemPromptOf(body).includes("YOUR TASK:") && !lastUserText(body).includes("YOUR TASK:");

/** config.yaml with one configured agent: the fake in `mode`. */
function configure(mode: string, extraArgs: string[] = [], env: Record<string, string> = {}): void {
  const args = [FAKE_AGENT, mode, ...extraArgs].map((arg) => JSON.stringify(arg)).join(", ");
  const envYaml = Object.entries(env).map(([key, value]) => `        ${key}: ${JSON.stringify(value)}\n`).join("");
  suite.home.writeConfig(
    `model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n` +
      `delegation:\n  acp_agents:\n    fake:\n      command: ${JSON.stringify(process.execPath)}\n      args: [${args}]\n` +
      (envYaml ? `      env:\n${envYaml}` : ""),
  );
}

async function session(options: { env?: Record<string, string>; onPermission?: () => RequestPermissionResponse } = {}) {
  const pair = suite.connect(options.onPermission ? { onPermission: options.onPermission } : {}, options.env);
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { pair, sessionId };
}

const prompt = (pair: InMemoryAgent, sessionId: string, text: string) =>
  pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

type Sent = { role: string; tool_call_id?: string; content: string };
function toolResult(id: string): { results: Array<{ status: string; summary: string | null; error?: string }> } {
  for (const request of [...suite.llm.requests].reverse()) {
    if (!parent(request.body)) continue;
    const found = (request.body.messages as Sent[]).find((message) => message.tool_call_id === id);
    // a result over the per-result cap reaches the model as a preview of the file holding it whole
    const spilled = found?.content.match(/^\[Tool result too large to send whole[^\]]*? saved in (\/\S+?)\. /)?.[1];
    if (found) return JSON.parse(spilled ? readFileSync(spilled, "utf8") : found.content) as { results: Array<{ status: string; summary: string | null; error?: string }> };
  }
  throw new Error(`no result for ${id}`);
}

async function delegate(pair: InMemoryAgent, sessionId: string) {
  suite.llm.push({ when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal: "do the thing", agent: "fake" } }] }, { when: parent, text: "done" });
  await prompt(pair, sessionId, "delegate it");
  return toolResult("d1").results[0]!;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 3000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("delegate_task with a hostile external ACP agent", () => {
  it("starts it without the agent's provider keys (only what its acp_agents entry gives it)", async () => {
    configure("env", [], { FAKE_AGENT_TOKEN: "given-by-config" });
    const { pair, sessionId } = await session({ env: { OPENROUTER_API_KEY: "sk-or-v1-leak", GROQ_API_KEY: "gsk-leak" } });
    const result = await delegate(pair, sessionId);
    expect(result.status).toBe("completed");
    expect(JSON.parse(result.summary!)).toEqual(["FAKE_AGENT_TOKEN"]);
  });

  it("rejects a permission request for another session without asking the user; its own is asked", async () => {
    configure("foreign");
    const { pair, sessionId } = await session({ onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) });
    const result = await delegate(pair, sessionId);
    expect(result.summary).toBe("foreign=no own=yes");
    expect(pair.permissions).toHaveLength(1);
    expect(pair.permissions[0]!.toolCall.title).toContain("touch own-was-allowed");
  });

  it("answers fs requests it never offered with an error", async () => {
    configure("fs");
    const { pair, sessionId } = await session();
    const result = await delegate(pair, sessionId);
    expect(result.summary).toBe("fs error -32601");
    expect(pair.fsRequests).toHaveLength(0);
  });

  it("survives malformed frames and keeps a bounded summary of a huge answer", async () => {
    configure("huge");
    const { pair, sessionId } = await session();
    const result = await delegate(pair, sessionId);
    expect(result.status).toBe("completed");
    expect(result.summary!.length).toBeLessThan(MAX_MESSAGE_CHARS + 200);
    expect(result.summary).toMatch(/^a+\n\[… cut: the agent's message was longer than/);
  });

  it("cancelling the parent stops an agent that never answers, and what it started in a session of its own", async () => {
    const marker = String(60_000 + Math.floor(Math.random() * 20_000));
    configure("silent", [marker]);
    const { pair, sessionId } = await session();
    const before = new Set(trackedGroups());
    suite.llm.push({ when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal: "never answers", agent: "fake" } }] });
    const turn = prompt(pair, sessionId, "delegate it");
    await until(() => sleepers(marker).length === 1, "the agent's detached child");
    const groups = trackedGroups().filter((group) => !before.has(group));
    await pair.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await until(() => groups.every((group) => !isGroupAlive(group)), "the agent's process group to end");
    await until(() => sleepers(marker).length === 0, "its detached child to end");
  });
});
