import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type SessionConfigOption, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { log } from "../src/shared/logger.js";
import { schemaProblems } from "./support/acp-schema.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import type { InMemoryAgent, InMemoryAgentOptions, RecordedFrame } from "./support/in-memory-acp.js";

/**
 * Issue 16 through the in-process agent app: every picker change is echoed to both pickers,
 * Hermes' `edit_approval_policy` id works, tool calls carry their raw input, raw output and name,
 * permission options have distinct kinds, an auto-approved edit shows its diff on the start, and
 * compressions reach the client as `compaction_update`s only when it opted in.
 */
log.configure({ level: "warn" });
const suite = acpPairSuite();

async function open(options: Omit<InMemoryAgentOptions, "home" | "env"> = {}): Promise<{ pair: InMemoryAgent; sessionId: string }> {
  const pair = suite.connect(options);
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { pair, sessionId };
}

const prompt = (pair: InMemoryAgent, sessionId: string, text: string) =>
  pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

const updates = (pair: InMemoryAgent): SessionUpdate[] => pair.updates.map((notification) => notification.update);
const ofKind = <K extends SessionUpdate["sessionUpdate"]>(pair: InMemoryAgent, kind: K): Array<Extract<SessionUpdate, { sessionUpdate: K }>> =>
  updates(pair).filter((update): update is Extract<SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind);
const current = (options: readonly SessionConfigOption[], id: string): unknown => options.find((option) => option.id === id)?.currentValue;

async function until(test: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !test(); i++) await new Promise((done) => setTimeout(done, 10));
  expect(test()).toBe(true);
}

/** The frames without the legacy `session/set_model` exchange (not in the schema). */
function withoutSetModel(frames: readonly RecordedFrame[]): RecordedFrame[] {
  const ids = new Set(frames.filter((frame) => frame.message.method === "session/set_model").map((frame) => String(frame.message.id)));
  const answer = (frame: RecordedFrame): boolean => frame.from === "agent" && !("method" in frame.message) && ids.has(String(frame.message.id));
  return frames.filter((frame) => frame.message.method !== "session/set_model" && !answer(frame));
}

describe("pickers in sync", () => {
  it("session/set_mode is echoed as config_option_update and current_mode_update", async () => {
    const { pair, sessionId } = await open();
    await pair.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await until(() => ofKind(pair, "current_mode_update").length === 1 && ofKind(pair, "config_option_update").some((u) => current(u.configOptions, "mode") === "plan"));
    expect(ofKind(pair, "current_mode_update")).toEqual([{ sessionUpdate: "current_mode_update", currentModeId: "plan" }]);
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("set_config_option(mode) is echoed both ways and answers the whole list", async () => {
    const { pair, sessionId } = await open();
    const answer = await pair.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "accept_edits" });
    expect(current(answer.configOptions, "mode")).toBe("accept_edits");
    await until(() => ofKind(pair, "current_mode_update").some((u) => u.currentModeId === "accept_edits"));
    const echoed = ofKind(pair, "config_option_update").at(-1);
    expect(echoed?.configOptions).toEqual(answer.configOptions);
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("accepts Hermes' edit_approval_policy id (ask / workspace_session / session) as the mode option", async () => {
    const { pair, sessionId } = await open();
    const set = (value: string) => pair.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "edit_approval_policy", value });
    expect(current((await set("workspace_session")).configOptions, "mode")).toBe("accept_edits");
    expect(pair.sessions.get(sessionId).session.approvals.mode).toBe("accept_edits");
    expect(current((await set("session")).configOptions, "mode")).toBe("dont_ask");
    expect(current((await set("ask")).configOptions, "mode")).toBe("default");
    expect(current((await set("plan")).configOptions, "mode")).toBe("plan");
    await expect(set("sometimes")).rejects.toMatchObject({ code: -32602 });
    expect(pair.sessions.get(sessionId).session.approvals.mode).toBe("plan");
    await until(() => ofKind(pair, "current_mode_update").length === 4);
    expect(ofKind(pair, "current_mode_update").map((u) => u.currentModeId)).toEqual(["accept_edits", "dont_ask", "default", "plan"]);
    // Not advertised under Hermes' name: the list keeps one mode option.
    expect(ofKind(pair, "config_option_update").at(-1)?.configOptions.map((option) => option.id)).not.toContain("edit_approval_policy");
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("refuses edit_approval_policy values that are only names on every object (toString, __proto__, constructor)", async () => {
    const { pair, sessionId } = await open();
    const set = (value: string) => pair.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "edit_approval_policy", value });
    for (const value of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
      await expect(set(value), value).rejects.toMatchObject({ code: -32602 });
      expect(pair.sessions.get(sessionId).session.approvals.mode, value).toBe("default");
    }
    expect(ofKind(pair, "current_mode_update")).toEqual([]);
  });

  it("set_config_option(model) and legacy session/set_model are echoed as config_option_update", async () => {
    const { pair, sessionId } = await open();
    await pair.connection.agent.request("session/set_model", { sessionId, modelId: "custom:other-model" });
    await until(() => ofKind(pair, "config_option_update").some((u) => current(u.configOptions, "model") === "custom:other-model"));
    const answer = await pair.connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "custom:test-model" });
    await until(() => ofKind(pair, "config_option_update").some((u) => current(u.configOptions, "model") === current(answer.configOptions, "model")));
    expect(ofKind(pair, "current_mode_update")).toEqual([]);
    expect(schemaProblems(withoutSetModel(pair.frames))).toEqual([]);
  });
});

describe("tool calls", () => {
  it("carry rawInput, rawOutput and the tool's name (schema name and _meta.hermes.toolName)", async () => {
    writeFileSync(join(suite.home.workspace, "notes.md"), "alpha\nbeta\n");
    const { pair, sessionId } = await open();
    suite.llm.push({ tool_calls: [{ id: "r1", name: "search_files", arguments: { pattern: "a", path: "." } }] }, { text: "done" });
    expect((await prompt(pair, sessionId, "look")).stopReason).toBe("end_turn");
    const start = ofKind(pair, "tool_call").find((u) => u.toolCallId === "r1");
    expect(start).toMatchObject({ name: "search_files", rawInput: { pattern: "a", path: "." }, _meta: { hermes: { toolName: "search_files" } } });
    const end = ofKind(pair, "tool_call_update").find((u) => u.toolCallId === "r1" && u.status === "completed");
    expect(end).toMatchObject({ _meta: { hermes: { toolName: "search_files" } } });
    expect(typeof end?.rawOutput).toBe("string");
    expect(String(end?.rawOutput)).toContain("notes.md:1:alpha");
    const shown = (end?.content ?? []).map((block) => (block.type === "content" && block.content.type === "text" ? block.content.text : "")).join("\n");
    expect(shown).toContain("Found 2 matches; showing 2.");
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("survive arguments nested far deeper than any real call: the turn ends, the call is shown and closed", async () => {
    const { pair, sessionId } = await open();
    const depth = 100_000;
    const deep = `{"command":"echo hi","x":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    suite.llm.push({ tool_calls: [{ id: "n1", name: "terminal", arguments: deep }] }, { text: "done" });
    expect((await prompt(pair, sessionId, "nest")).stopReason).toBe("end_turn");
    expect(ofKind(pair, "tool_call").find((u) => u.toolCallId === "n1")).toMatchObject({ rawInput: { command: "echo hi" } });
    expect(ofKind(pair, "tool_call_update").some((u) => u.toolCallId === "n1" && (u.status === "completed" || u.status === "failed"))).toBe(true);
    expect(suite.llm.requests).toHaveLength(2);
  });

  it("offer a dangerous command's options with distinct kinds: allow_once first, allow_always only for 'always'", async () => {
    const { pair, sessionId } = await open({ onPermission: () => ({ outcome: { outcome: "selected", optionId: "deny" } }) });
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] }, { text: "ok" });
    await prompt(pair, sessionId, "clean");
    expect(pair.permissions).toHaveLength(1);
    const options = pair.permissions[0]!.options;
    expect(options.map((option) => [option.optionId, option.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_session", "allow_once"],
      ["allow_always", "allow_always"],
      ["deny", "reject_once"],
      ["deny_always", "reject_always"],
    ]);
    // A client picking by kind gets what the kind promises: the first allow_once is "Allow once".
    expect(options.find((option) => option.kind === "allow_once")?.optionId).toBe("allow_once");
    expect(options.filter((option) => option.kind === "allow_always").map((option) => option.optionId)).toEqual(["allow_always"]);
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("show an auto-approved edit's diff on the tool_call start; an edit that asks shows it on the approval card", async () => {
    const file = join(suite.home.workspace, "a.txt");
    writeFileSync(file, "one\r\ntwo\r\n");
    const { pair, sessionId } = await open();
    await pair.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "accept_edits" });
    suite.llm.push(
      { tool_calls: [{ id: "p1", name: "patch", arguments: { path: "a.txt", old_string: "two", new_string: "TWO" } }] },
      { tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "b.txt", content: "fresh\n" } }] },
      { text: "edited" },
    );
    await prompt(pair, sessionId, "edit");
    expect(readFileSync(file, "utf8")).toBe("one\r\nTWO\r\n");
    expect(pair.permissions).toHaveLength(0);
    const patchStart = ofKind(pair, "tool_call").find((u) => u.toolCallId === "p1");
    expect(patchStart?.content).toEqual([{ type: "diff", path: file, oldText: "one\r\ntwo\r\n", newText: "one\r\nTWO\r\n" }]);
    const writeStart = ofKind(pair, "tool_call").find((u) => u.toolCallId === "w1");
    expect(writeStart?.content).toEqual([{ type: "diff", path: join(suite.home.workspace, "b.txt"), oldText: null, newText: "fresh\n" }]);

    // Back in default mode the start says what is prepared; the approval card has the diff.
    await pair.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "default" });
    suite.llm.push({ tool_calls: [{ id: "w2", name: "write_file", arguments: { path: "a.txt", content: "asked\n" } }] }, { text: "ok" });
    await prompt(pair, sessionId, "again");
    const asked = ofKind(pair, "tool_call").find((u) => u.toolCallId === "w2");
    expect(asked?.content?.map((block) => block.type)).toEqual(["content"]);
    expect(pair.permissions[0]?.toolCall.content?.[0]).toMatchObject({ type: "diff", newText: "asked\r\n" });
    expect(schemaProblems(pair.frames)).toEqual([]);
  });
});

describe("compaction", () => {
  function configure(): void {
    suite.home.writeConfig(
      [
        "model:",
        "  provider: custom",
        `  base_url: ${suite.llm.baseUrl}`,
        "  default: test-model",
        "  context_length: 100000",
        "compression:",
        "  protect_first_n: 2",
        "  protect_last_n: 4",
      ].join("\n"),
    );
  }

  /** Five exchanges, the fifth reporting a prompt past the threshold; the sixth turn compresses first. */
  async function compressInTurn(pair: InMemoryAgent, sessionId: string): Promise<void> {
    for (let i = 1; i <= 5; i++) {
      suite.llm.push({ text: `answer ${i}`, ...(i === 5 ? { usage: { prompt_tokens: 60_000 } } : {}) });
      await prompt(pair, sessionId, `question ${i}`);
    }
    suite.llm.push({ text: "## Goal\nAnswer questions\n## Progress\nSUMMARY-ONE" }, { text: "answer 6" });
    await prompt(pair, sessionId, "question 6");
  }

  it("reaches a client that opted in as compaction_update (in_progress, then completed with the summary)", async () => {
    configure();
    const { pair, sessionId } = await open({ clientCapabilities: { session: { compaction: {} } } });
    await compressInTurn(pair, sessionId);
    const compactions = ofKind(pair, "compaction_update");
    expect(compactions.map((u) => u.status)).toEqual(["in_progress", "completed"]);
    expect(compactions[0]?.compactionId).toBe(compactions[1]?.compactionId);
    const summary = (compactions[1]?.summary ?? []).map((block) => (block.type === "text" ? block.text : "")).join("\n");
    expect(summary).toMatch(/^Context compressed: \d+ -> \d+ messages, ~[\d,]+ -> ~[\d,]+ tokens\n/);
    expect(summary).toContain("SUMMARY-ONE");
    expect(compactions[1]?._meta).toMatchObject({ hermes: { trigger: "auto" } });
    expect(ofKind(pair, "agent_message_chunk").some((u) => u.content.type === "text" && u.content.text.startsWith("Context compressed"))).toBe(false);

    // `/compress` too (its reply stays the command's).
    suite.llm.push({ text: "## Goal\nSUMMARY-TWO" });
    await prompt(pair, sessionId, "/compress");
    await until(() => ofKind(pair, "compaction_update").length === 4);
    expect(ofKind(pair, "compaction_update").at(-1)).toMatchObject({ status: "completed", _meta: { hermes: { trigger: "manual" } } });
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("gives any other client one agent line and no compaction_update", async () => {
    configure();
    const { pair, sessionId } = await open();
    await compressInTurn(pair, sessionId);
    expect(ofKind(pair, "compaction_update")).toEqual([]);
    const lines = ofKind(pair, "agent_message_chunk").filter((u) => u.content.type === "text" && u.content.text.startsWith("Context compressed"));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.content).toMatchObject({ text: expect.stringMatching(/^Context compressed: \d+ -> \d+ messages, ~[\d,]+ -> ~[\d,]+ tokens\n\n$/) });
    expect(schemaProblems(pair.frames)).toEqual([]);
  });
});
