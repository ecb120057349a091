import { methods, type RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GUARDIAN_PROMPT } from "../src/runtime/approval-guardian.js";
import { log } from "../src/shared/logger.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";

/** `approvals.mode: smart`: the auxiliary.approval guardian judges flagged commands before the user is asked. */
log.configure({ level: "warn" });
const suite = acpPairSuite();
let guardian: FakeLlm;
beforeEach(async () => {
  guardian = await startFakeLlm();
  mkdirSync(join(suite.home.workspace, "build"), { recursive: true });
  writeFileSync(join(suite.home.workspace, "build", "out.o"), "binary");
});
afterEach(() => guardian.close());

function configure(mode: string): void {
  suite.home.writeConfig(
    `model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\napprovals:\n  mode: ${mode}\nauxiliary:\n  approval:\n    base_url: ${guardian.baseUrl}\n    model: guardian-model\n`,
  );
}

async function run(answer: RequestPermissionResponse = { outcome: { outcome: "selected", optionId: "deny" } }) {
  const pair = suite.connect({ onPermission: () => answer });
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] }, { text: "done" });
  await pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "clean the build" }] });
  return pair;
}

describe("smart approvals", () => {
  it("runs a flagged command the guardian approves without asking, the command fenced as data", async () => {
    configure("smart");
    guardian.push({ text: '{"verdict": "approve", "reason": "removes build output in the project"}' });
    const pair = await run();
    expect(pair.permissions).toHaveLength(0);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(false);
    const asked = guardian.requests[0]!.body;
    expect(asked.model).toBe("guardian-model");
    expect(asked.messages[0].content).toBe(GUARDIAN_PROMPT);
    expect(asked.messages[1].content).toContain("<command>\nrm -rf build\n</command>");
  });

  it("still asks the user after a guardian deny, with allow-once and deny only and the reason shown", async () => {
    configure("smart");
    guardian.push({ text: '```json\n{"verdict": "deny", "reason": "deletes a folder"}\n```' });
    const pair = await run();
    expect(pair.permissions).toHaveLength(1);
    expect(pair.permissions[0]!.options.map((option) => option.optionId)).toEqual(["allow_once", "deny"]);
    expect(JSON.stringify(pair.permissions[0]!.toolCall.content)).toContain("The approval guardian advised against it: deletes a folder");
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(true);
  });

  it("asks as usual when the guardian fails or answers nonsense (never approves by accident)", async () => {
    configure("smart");
    guardian.push({ status: 500 });
    const first = await run();
    expect(first.permissions).toHaveLength(1);
    expect(first.permissions[0]!.options.map((option) => option.optionId)).toContain("allow_session");
    guardian.push({ text: 'I would say {"verdict": "approve"} but also {"verdict": "deny"}' });
    const second = await run();
    expect(second.permissions).toHaveLength(1);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(true);
  });

  it("never asks the guardian outside smart mode", async () => {
    configure("manual");
    const pair = await run();
    expect(pair.permissions).toHaveLength(1);
    expect(guardian.requests).toHaveLength(0);
  });
});
