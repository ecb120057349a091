import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type RequestPermissionResponse, type SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { log } from "../src/shared/logger.js";
import { isGroupAlive, trackedGroups } from "../src/tools/process/process-group.js";
import { BUILT_BINARY } from "./support/acp-client.js";
import { lastUserText, systemPromptOf, type RecordedRequest } from "./support/fake-llm.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { type InMemoryAgent, type InMemoryAgentOptions } from "./support/in-memory-acp.js";
import { sleepers, sleepCommands } from "./support/processes.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * delegate_task end to end through the ACP layer in process: children scripted by their goal
 * (the fake model's `when` matchers), approvals in the editor, cancel, ACP children (the built
 * binary), background delivery.
 */
log.configure({ level: "error" });
const suite = acpPairSuite();

const MODEL_CONFIG = (baseUrl: string): string => `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: test-model\n`;

async function session(options: Omit<InMemoryAgentOptions, "home" | "env"> = {}): Promise<{ pair: InMemoryAgent; sessionId: string }> {
  const pair = suite.connect(options);
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { pair, sessionId };
}

const prompt = (pair: InMemoryAgent, sessionId: string, text: string) =>
  pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

const choose = (optionId: string) => (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

/** A native child's requests: its system prompt is the child prompt for `goal`. */
const child = (goal: string) => (body: unknown) => systemPromptOf(body).includes(`YOUR TASK:\n${goal}`);
/** An ACP child's requests (the built binary): its one prompt carries the task. */
const acpChild = (goal: string) => (body: unknown) => lastUserText(body).includes(`YOUR TASK:\n${goal}`);
/** The parent's requests: neither. */
const parent = (body: unknown) => !systemPromptOf(body).includes("YOUR TASK:") && !lastUserText(body).includes("YOUR TASK:");

type Sent = { role: string; tool_call_id?: string; content: string };
/** The result the parent's model got for tool call `id` (from its latest request that carries it). */
function toolResult(id: string): Record<string, unknown> {
  for (const request of [...suite.llm.requests].reverse()) {
    if (!parent(request.body)) continue;
    const found = (request.body.messages as Sent[]).find((message) => message.tool_call_id === id);
    if (found) return JSON.parse(found.content) as Record<string, unknown>;
  }
  throw new Error(`no result for ${id}`);
}
const requestsOf = (matcher: (body: unknown) => boolean): RecordedRequest[] => suite.llm.requests.filter((request) => matcher(request.body));
const offeredTools = (request: RecordedRequest): string[] => ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
const agentText = (updates: SessionNotification[]): string =>
  updates.flatMap((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? [n.update.content.text] : [])).join("");

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 3000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("delegate_task", () => {
  it("runs a batch of three children concurrently and returns their three summaries", async () => {
    const { pair, sessionId } = await session();
    const goals = ["survey the parser", "survey the lexer", "survey the printer"];
    suite.llm.push({ when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { tasks: goals.map((goal) => ({ goal })) } }] });
    for (const goal of goals) {
      suite.llm.push({ when: child(goal), text: `Finished: ${goal}. Nothing needed changing in the files I read today.`, delayMs: 40 });
    }
    suite.llm.push({ when: parent, text: "All three are done." });
    expect((await prompt(pair, sessionId, "survey the code")).stopReason).toBe("end_turn");

    const childRequests = goals.map((goal) => requestsOf(child(goal)));
    expect(childRequests.map((requests) => requests.length)).toEqual([1, 1, 1]);
    const firsts = childRequests.map((requests) => requests[0]!);
    // every child's request arrived before any child's answer had been written
    expect(Math.max(...firsts.map((request) => request.receivedAt))).toBeLessThan(Math.min(...firsts.map((request) => request.finishedAt!)));
    expect(firsts.every((request) => !offeredTools(request).includes("delegate_task") && !offeredTools(request).includes("memory"))).toBe(true);
    expect(offeredTools(requestsOf(parent)[0]!)).toContain("delegate_task");
    // children start fresh: their goal is their one user message, nothing of the parent's history
    expect(firsts.map((request) => (request.body.messages as Sent[]).filter((message) => message.role === "user").map((message) => message.content))).toEqual(goals.map((goal) => [goal]));

    const result = toolResult("d1") as { results: Array<{ task_index: number; status: string; summary: string }>; note: string };
    expect(result.results.map((entry) => [entry.task_index, entry.status, entry.summary])).toEqual(goals.map((goal, index) => [index, "completed", `Finished: ${goal}. Nothing needed changing in the files I read today.`]));
    expect(result.note).toMatch(/self-reports/i);

    // stored as subagent sessions of the parent, kept out of session/list
    const stored = pair.runtime.directory.list({ source: "subagent" }).sessions;
    expect(stored.map((row) => row.parentSessionId)).toEqual([sessionId, sessionId, sessionId]);
    const listed = await pair.connection.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.map((row) => row.sessionId)).toEqual([sessionId]);
    // the delegate_task call showed what the children did and the results
    const final = pair.updates.find((n) => n.update.sessionUpdate === "tool_call_update" && n.update.toolCallId === "d1" && n.update.status === "completed");
    expect(JSON.stringify(final)).toContain("Delegation results: 3 tasks");
  });

  it("refuses a fourth task in one call, and a leaf asking for delegate_task is refused", async () => {
    const { pair, sessionId } = await session();
    suite.llm.push(
      { when: parent, tool_calls: [{ id: "d4", name: "delegate_task", arguments: { tasks: ["a", "b", "c", "d"].map((goal) => ({ goal: `task ${goal}` })) } }] },
      { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal: "nest further" } }] },
      { when: child("nest further"), tool_calls: [{ id: "n1", name: "delegate_task", arguments: { goal: "grandchild" } }] },
      { when: child("nest further"), text: "I could not delegate, so I stopped." },
      { when: parent, text: "ok" },
    );
    await prompt(pair, sessionId, "split it up");
    expect(toolResult("d4")).toEqual({ error: expect.stringMatching(/^Too many tasks: 4 provided, but max_concurrent_children is 3/) });
    const childRequests = requestsOf(child("nest further"));
    expect(childRequests).toHaveLength(2);
    expect(offeredTools(childRequests[0]!)).not.toContain("delegate_task");
    const refused = (childRequests[1]!.body.messages as Sent[]).find((message) => message.tool_call_id === "n1")!;
    expect(refused.content).toMatch(/Unknown tool 'delegate_task'/);
    expect(requestsOf(child("grandchild"))).toHaveLength(0);
    expect(toolResult("d1")).toMatchObject({ results: [{ status: "completed", summary: "I could not delegate, so I stopped." }] });
  });

  it("lets an orchestrator delegate once more when max_spawn_depth allows, its own children being leaves", async () => {
    suite.home.writeConfig(`${MODEL_CONFIG(suite.llm.baseUrl)}delegation:\n  max_spawn_depth: 2\n`);
    const { pair, sessionId } = await session();
    suite.llm.push(
      { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal: "lead the audit", role: "orchestrator" } }] },
      { when: child("lead the audit"), tool_calls: [{ id: "d2", name: "delegate_task", arguments: { goal: "audit one module", role: "orchestrator" } }] },
      { when: child("audit one module"), text: "Module is fine." },
      { when: child("lead the audit"), text: "The audit found nothing." },
      { when: parent, text: "done" },
    );
    await prompt(pair, sessionId, "audit");
    expect(offeredTools(requestsOf(child("lead the audit"))[0]!)).toContain("delegate_task");
    expect(systemPromptOf(requestsOf(child("lead the audit"))[0]!.body)).toMatch(/Orchestrator Role[\s\S]*Your own children MUST be leaves/);
    expect(offeredTools(requestsOf(child("audit one module"))[0]!)).not.toContain("delegate_task");
    expect(toolResult("d1")).toMatchObject({ results: [{ status: "completed", role: "orchestrator", summary: "The audit found nothing." }] });
    const stored = pair.runtime.directory.list({ source: "subagent" }).sessions;
    const lead = stored.find((row) => row.title === "lead the audit")!;
    expect(lead.parentSessionId).toBe(sessionId);
    expect(stored.find((row) => row.title === "audit one module")!.parentSessionId).toBe(lead.id);
  });

  it("asks the editor for a child's write, labelled with the child's goal, on the delegate_task call", async () => {
    const { pair, sessionId } = await session({ onPermission: choose("allow_once") });
    const goal = "write the release notes";
    suite.llm.push(
      { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal, context: "Put them in NOTES.md" } }] },
      { when: child(goal), tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "NOTES.md", content: "# Notes\n" } }] },
      { when: child(goal), text: "Wrote NOTES.md." },
      { when: parent, text: "Notes written." },
    );
    await prompt(pair, sessionId, "notes please");
    expect(pair.permissions).toHaveLength(1);
    const asked = pair.permissions[0]!;
    expect(asked.toolCall.toolCallId).toBe("d1");
    expect(asked.toolCall.title).toMatch(/^\[child 1: write the release notes\] Create .*NOTES\.md$/);
    expect(readFileSync(join(suite.home.workspace, "NOTES.md"), "utf8")).toBe("# Notes\n");
    // the child's tool call showed on the delegate_task call while it ran
    const progress = pair.updates.filter((n) => n.update.sessionUpdate === "tool_call_update" && n.update.toolCallId === "d1" && n.update.status === "in_progress");
    expect(JSON.stringify(progress)).toContain("[child 1] write: NOTES.md");
    expect(toolResult("d1")).toMatchObject({ results: [{ status: "completed", files_changed: [join(suite.home.workspace, "NOTES.md")] }] });
    // the context reached the child's prompt
    expect(systemPromptOf(requestsOf(child(goal))[0]!.body)).toContain("CONTEXT:\nPut them in NOTES.md");
  });

  it("denies a child's dangerous command without asking unless subagent_auto_approve is set", async () => {
    const { pair, sessionId } = await session({ onPermission: choose("allow_once") });
    const goal = "clean the build folder";
    mkdirSync(join(suite.home.workspace, "build"));
    suite.llm.push(
      { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal } }] },
      { when: child(goal), tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] },
      { when: child(goal), text: "I was not allowed to remove build." },
      { when: parent, text: "ok" },
    );
    await prompt(pair, sessionId, "clean up");
    expect(pair.permissions).toHaveLength(0);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(true);
    const denied = (requestsOf(child(goal))[1]!.body.messages as Sent[]).find((message) => message.tool_call_id === "t1")!;
    expect(denied.content).toMatch(/denied/i);
    expect(systemPromptOf(requestsOf(child(goal))[0]!.body)).toMatch(/DENIED automatically/);

    suite.home.writeConfig(`${MODEL_CONFIG(suite.llm.baseUrl)}delegation:\n  subagent_auto_approve: true\n`);
    const second = await session({ onPermission: choose("allow_once") });
    suite.llm.push(
      { when: parent, tool_calls: [{ id: "d2", name: "delegate_task", arguments: { goal: "clean it for real" } }] },
      { when: child("clean it for real"), tool_calls: [{ id: "t2", name: "terminal", arguments: { command: "rm -rf build" } }] },
      { when: child("clean it for real"), text: "Removed build." },
      { when: parent, text: "ok" },
    );
    await prompt(second.pair, second.sessionId, "clean up again");
    expect(second.pair.permissions).toHaveLength(0);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(false);
  });

  describe("external ACP agents as children (the built binary: run `npm run build` first)", () => {
    let childHome: TempHome;
    beforeEach(() => {
      childHome = createTempHome({ baseUrl: suite.llm.baseUrl });
      suite.home.writeConfig(
        `${MODEL_CONFIG(suite.llm.baseUrl)}delegation:\n  acp_agents:\n    hermes:\n      command: ${JSON.stringify(process.execPath)}\n` +
          `      args: [${JSON.stringify(BUILT_BINARY)}, acp]\n      env:\n        HERMES_HOME: ${JSON.stringify(childHome.home)}\n`,
      );
    });
    afterEach(() => childHome.cleanup());

    it("returns the agent's summary and forwards its permission request to the editor", async () => {
      expect(existsSync(BUILT_BINARY), `${BUILT_BINARY} is missing: run npm run build`).toBe(true);
      const { pair, sessionId } = await session({ onPermission: choose("allow_once") });
      const goal = "record the version";
      const before = new Set(trackedGroups());
      suite.llm.push(
        { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal, agent: "hermes" } }] },
        { when: acpChild(goal), tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "VERSION.txt", content: "1\n" } }] },
        { when: acpChild(goal), text: "Wrote VERSION.txt with 1." },
        { when: parent, text: "done" },
      );
      expect((await prompt(pair, sessionId, "record it with the other agent")).stopReason).toBe("end_turn");
      expect(pair.permissions).toHaveLength(1);
      expect(pair.permissions[0]!.toolCall.toolCallId).toBe("d1");
      expect(pair.permissions[0]!.toolCall.title).toMatch(/^\[child 1: record the version\] Create .*VERSION\.txt$/);
      expect(readFileSync(join(suite.home.workspace, "VERSION.txt"), "utf8")).toBe("1\n");
      expect(toolResult("d1")).toMatchObject({
        results: [{ status: "completed", agent: "hermes", summary: "Wrote VERSION.txt with 1.", files_changed: [join(suite.home.workspace, "VERSION.txt")] }],
      });
      // the agent was told the task (in the parent's cwd) and nothing advertised fs or terminals to it
      expect(lastUserText(requestsOf(acpChild(goal))[0]!.body)).toContain(`WORKSPACE PATH:\n${suite.home.workspace}`);
      // its process is gone, and it is stored as the parent's subagent session
      expect(trackedGroups().filter((group) => !before.has(group))).toEqual([]);
      expect(pair.runtime.directory.list({ source: "subagent" }).sessions.map((row) => [row.parentSessionId, row.model])).toEqual([[sessionId, "hermes"]]);
    });

    it("exports the parent with its children (hermes sessions export)", async () => {
      expect(existsSync(BUILT_BINARY), `${BUILT_BINARY} is missing: run npm run build`).toBe(true);
      const { pair, sessionId } = await session();
      suite.llm.push(
        { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { goal: "count the files" } }] },
        { when: child("count the files"), text: "There are 42 files." },
        { when: parent, text: "42." },
      );
      await prompt(pair, sessionId, "how many files?");
      const markdown = execFileSync(process.execPath, [BUILT_BINARY, "sessions", "export", sessionId], { env: suite.home.env(), encoding: "utf8" });
      expect(markdown).toMatch(/^# how many files\?/);
      expect(markdown).toMatch(/\n---\n\n# Subagent: count the files\n[\s\S]*- \*\*Source:\*\* subagent[\s\S]*There are 42 files\./);
      const json = JSON.parse(execFileSync(process.execPath, [BUILT_BINARY, "sessions", "export", sessionId, "--json"], { env: suite.home.env(), encoding: "utf8" })) as { subagents: Array<{ session: { parentSessionId: string } }> };
      expect(json.subagents.map((entry) => entry.session.parentSessionId)).toEqual([sessionId]);
      const listed = JSON.parse(execFileSync(process.execPath, [BUILT_BINARY, "sessions", "list", "--json"], { env: suite.home.env(), encoding: "utf8" })) as { sessions: Array<{ id: string }> };
      expect(listed.sessions.map((row) => row.id)).toEqual([sessionId]);
    });

    it("cancelling the parent stops every child, native and ACP, and their processes", async () => {
      expect(existsSync(BUILT_BINARY), `${BUILT_BINARY} is missing: run npm run build`).toBe(true);
      const { pair, sessionId } = await session();
      const marker = String(40_000 + Math.floor(Math.random() * 20_000));
      const before = new Set(trackedGroups());
      suite.llm.push(
        { when: parent, tool_calls: [{ id: "d1", name: "delegate_task", arguments: { tasks: [{ goal: "wait one" }, { goal: "wait two" }, { goal: "wait elsewhere", agent: "hermes" }] } }] },
        { when: child("wait one"), tool_calls: [{ id: "s1", name: "terminal", arguments: { command: `sleep ${marker}` } }] },
        { when: child("wait two"), tool_calls: [{ id: "s2", name: "terminal", arguments: { command: `sleep ${marker}` } }] },
        { when: acpChild("wait elsewhere"), hang: "headers" },
      );
      const turn = prompt(pair, sessionId, "wait for things");
      await until(() => sleepCommands(marker).length === 2 && requestsOf(acpChild("wait elsewhere")).length === 1, "both commands and the ACP child's model call");
      const groups = trackedGroups().filter((group) => !before.has(group));
      expect(groups.length).toBeGreaterThanOrEqual(3);
      await pair.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      await until(() => sleepers(marker).length === 0 && groups.every((group) => !isGroupAlive(group)), "every child process to end");
      expect(suite.llm.remaining()).toBe(0);
    });
  });

  it("runs a background child and delivers its result with the next user message", async () => {
    const { pair, sessionId } = await session();
    const goal = "profile the startup";
    suite.llm.push(
      { when: parent, tool_calls: [{ id: "b1", name: "delegate_task", arguments: { goal, background: true } }] },
      { when: parent, text: "It runs in the background." },
      { when: child(goal), text: "Startup spends most of its time loading the SDK." },
    );
    expect((await prompt(pair, sessionId, "look into startup, in the background")).stopReason).toBe("end_turn");
    const dispatched = toolResult("b1") as { status: string; delegation_id: string };
    expect(dispatched).toMatchObject({ status: "dispatched", mode: "background" });
    await until(() => agentText(pair.updates).includes(`Background task ${dispatched.delegation_id} finished (completed)`), "the background child");

    suite.llm.push({ when: parent, text: "It loads the SDK." });
    await prompt(pair, sessionId, "what did it find?");
    const sent = lastUserText(requestsOf(parent).at(-1)!.body);
    expect(sent).toContain(`[ASYNC DELEGATION COMPLETE — ${dispatched.delegation_id}]`);
    expect(sent).toContain("Startup spends most of its time loading the SDK.");
    expect(sent.endsWith("what did it find?")).toBe(true);
    // delivered once
    suite.llm.push({ when: parent, text: "nothing new" });
    await prompt(pair, sessionId, "anything else?");
    expect(lastUserText(requestsOf(parent).at(-1)!.body)).toBe("anything else?");
  });
});
