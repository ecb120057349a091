/**
 * execute_code end to end through the runtime: the scripted model, a real session, real python3
 * inside real bubblewrap, the inner calls through the agent's `innerTools` port with the session's
 * approvals and plan mode. Also measures the 40-file survey (round trips and characters sent to
 * the model, with and without execute_code) and prints the figures.
 */
import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../src/agent/events.js";
import { runTurn } from "../src/agent/loop.js";
import { defaultConfig } from "../src/config/schema.js";
import type { CommandAnswer, EditAnswer, PermissionAsker } from "../src/runtime/approvals.js";
import type { AgentSession } from "../src/runtime/session.js";
import { executeCodeTool } from "../src/tools/execute-code/execute-code.js";
import { sandboxSettings } from "../src/tools/exec/sandbox/settings.js";
import type { CommandApprovalRequest, EditApprovalRequest } from "../src/tools/ports.js";
import { readFileTool } from "../src/tools/read-file/read-file.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { ToolSessionState } from "../src/tools/session-state.js";
import { writeFileTool } from "../src/tools/write-file/write-file.js";
import { testTurn } from "./support/agent-turn.js";
import type { FakeToolCall } from "./support/fake-llm.js";
import { connectInMemory } from "./support/in-memory-acp.js";
import { sleepers } from "./support/processes.js";
import { runtimeSuite } from "./support/runtime-suite.js";
import { sandboxUsable } from "./support/sandbox.js";
import { toolContext } from "./support/tool-context.js";

const usable = await sandboxUsable();
const suite = runtimeSuite();

/** An asker that records every question and answers with `edit` / `command`. */
function recordingAsker(answers: { edit?: EditAnswer; command?: CommandAnswer } = {}) {
  const edits: EditApprovalRequest[] = [];
  const commands: CommandApprovalRequest[] = [];
  const asker: PermissionAsker = {
    askCommand: async (request) => {
      commands.push(request);
      return answers.command ?? "deny";
    },
    askEdit: async (request) => {
      edits.push(request);
      return answers.edit ?? "deny";
    },
  };
  return { asker, edits, commands };
}

function configure(extra = ""): void {
  suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n${extra}`);
}

async function prompt(session: AgentSession, options: { asker?: PermissionAsker; signal?: AbortSignal; onEvent?: (event: AgentEvent) => void } = {}) {
  const events: AgentEvent[] = [];
  const result = await session.prompt("go", {
    emit: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
    signal: options.signal ?? new AbortController().signal,
    asker: options.asker ?? recordingAsker().asker,
  });
  return { result, events };
}

const script = (code: string, id = "x1"): { tool_calls: FakeToolCall[] } => ({ tool_calls: [{ id, name: "execute_code", arguments: { code } }] });

/** The text the model was sent for the tool call `id` (in the last request). */
function toolContent(id: string): string {
  const messages = suite.llm.requests.at(-1)?.body.messages as Array<{ tool_call_id?: string; content: string }>;
  return messages.find((message) => message.tool_call_id === id)?.content ?? "{}";
}

/** The result the model was sent for the tool call `id`, parsed. */
function toolResult(id: string): Record<string, unknown> {
  return JSON.parse(toolContent(id)) as Record<string, unknown>;
}

describe.skipIf(!usable)("execute_code through the runtime", () => {
  it("reads five files in one model round trip; the inner calls are progress lines, not tool calls", async () => {
    for (let i = 1; i <= 5; i++) writeFileSync(join(suite.home.workspace, `f${i}.txt`), `file ${i}\n`);
    const code = "from hermes_tools import read_file\nfound = [read_file(f'f{i}.txt') for i in range(1, 6)]\nprint(sum(1 for r in found if 'content' in r))\n";
    suite.llm.push(script(code), { text: "5 files" });
    const session = await suite.open();
    expect(session.tools.names()).toContain("execute_code");
    const { result, events } = await prompt(session);
    expect(result.stopReason).toBe("end_turn");
    expect(suite.llm.requests).toHaveLength(2);
    expect(toolResult("x1")).toMatchObject({ status: "success", output: "5", tool_calls_made: 5, exit_code: 0 });
    const starts = events.filter((event) => event.type === "tool_start");
    expect(starts.map((event) => event.name)).toEqual(["execute_code"]);
    expect(starts[0]).toMatchObject({ kind: "execute", title: "execute_code: found = [read_file(f'f{i}.txt') for i in range(1, 6)]" });
    const progress = events.filter((event) => event.type === "tool_progress" && event.tool === "execute_code");
    expect(progress.length).toBeGreaterThan(0);
    const end = events.find((event) => event.type === "tool_end");
    expect(end?.tool === "execute_code" ? end.details?.calls.map((call) => call.summary) : []).toEqual(["read_file f1.txt", "read_file f2.txt", "read_file f3.txt", "read_file f4.txt", "read_file f5.txt"]);
    expect(session.history.filter((message) => message.role === "tool")).toHaveLength(1);
  });

  it("holds the script and its inner calls to the sandbox and the session's approvals", async () => {
    const hermesHome = suite.home.home;
    const outside = join(hermesHome, "outside.txt");
    const code = [
      "import json",
      "from hermes_tools import write_file, terminal",
      "try:",
      "    open('/etc/shadow').read(); print('shadow read')",
      "except OSError as e: print('shadow', type(e).__name__)",
      "try:",
      `    open(${JSON.stringify(join(hermesHome, "direct.txt"))}, 'w').write('x'); print('home written')`,
      "except OSError as e: print('home', type(e).__name__)",
      `print('write_file', write_file(${JSON.stringify(outside)}, 'x').get('error', 'no error')[:40])`,
      "print('pid 1 is', terminal(\"tr '\\\\0' ' ' < /proc/1/cmdline\")['output'].split()[0])",
    ].join("\n");
    suite.llm.push(script(code, "s1"), { text: "done" });
    const session = await suite.open();
    const { asker, edits } = recordingAsker({ edit: "deny" });
    await prompt(session, { asker });
    const lines = String(toolResult("s1").output).split("\n");
    expect(lines[0]).toBe("shadow PermissionError");
    expect(lines[1]).toBe("home OSError");
    expect(lines[2]).toMatch(/^write_file .*denied/i);
    expect(lines[3]).toMatch(/^pid 1 is \S*bwrap$/);
    expect(edits).toMatchObject([{ callId: "s1", toolName: "write_file", edits: [{ path: outside }] }]);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(hermesHome, "direct.txt"))).toBe(false);
  });

  it("refuses writes in plan mode: nothing is written", async () => {
    const code = "from hermes_tools import write_file\nprint(write_file('plan.txt', 'x'))\n";
    suite.llm.push(script(code, "p1"), { text: "planned" });
    const session = await suite.open();
    session.approvals.mode = "plan";
    const { edits, asker } = recordingAsker({ edit: "allow" });
    await prompt(session, { asker });
    // Refused as a whole while plan mode's gate lets no execute tool but terminal/process run; were
    // execute_code let through (read-only sandbox), its inner write_file would get the same refusal.
    expect(toolContent("p1")).toContain("Blocked in Plan mode");
    expect(edits).toEqual([]);
    expect(existsSync(join(suite.home.workspace, "plan.txt"))).toBe(false);
  });

  it("with a plan-mode gate that lets execute_code run: the inner write_file is refused and the sandbox is read-only", async () => {
    const workspace = suite.home.workspace;
    writeFileSync(join(workspace, "plan-input.txt"), "read me\n");
    const code = [
      "from hermes_tools import read_file, write_file",
      "print(read_file('plan-input.txt')['content'])",
      "print(write_file('plan.txt', 'x')['error'][:22])",
      "try:",
      "    open('direct.txt', 'w').write('x')",
      "except OSError as e: print('direct', type(e).__name__)",
    ].join("\n");
    suite.llm.push(script(code, "g1"), { text: "planned" });
    const config = defaultConfig();
    const approveEdit = async (): Promise<boolean> => true;
    const { input } = testTurn(suite.llm, {
      tools: new ToolRegistry([executeCodeTool, readFileTool, writeFileTool]),
      toolContext: toolContext({ cwd: workspace, hermesHome: suite.home.home, config, sandbox: sandboxSettings(config, true), state: new ToolSessionState(), ports: { approveEdit } }),
      toolGate: (tool) => (tool.mutating && tool.name !== "execute_code" ? `Blocked in Plan mode: '${tool.name}' would change the workspace.` : undefined),
    });
    await runTurn(input);
    expect(String(toolResult("g1").output).split("\n")).toEqual(["1|read me", "Blocked in Plan mode: ", "direct OSError"]);
    expect(existsSync(join(workspace, "plan.txt"))).toBe(false);
    expect(existsSync(join(workspace, "direct.txt"))).toBe(false);
  });

  it("kills a script at code_execution.timeout", async () => {
    configure("code_execution:\n  timeout: 1\n");
    suite.llm.push(script("import subprocess, time\nsubprocess.Popen(['sleep', '731401'])\ntime.sleep(120)\n", "t1"), { text: "too slow" });
    const session = await suite.open();
    const { result } = await prompt(session);
    expect(result.stopReason).toBe("end_turn");
    expect(toolResult("t1")).toMatchObject({ status: "timeout", error: "Script timed out after 1s and was killed." });
    expect(sleepers("731401")).toEqual([]);
  });

  it("cancel kills the script and its inner call", async () => {
    writeFileSync(join(suite.home.workspace, "c.txt"), "c\n");
    const code = "import subprocess, time\nfrom hermes_tools import read_file, terminal\nread_file('c.txt')\nterminal('sleep 731402')\ntime.sleep(120)\n";
    suite.llm.push(script(code, "c1"));
    const session = await suite.open();
    const controller = new AbortController();
    const { result, events } = await prompt(session, {
      signal: controller.signal,
      onEvent: (event) => {
        const calls = event.type === "tool_progress" && event.tool === "execute_code" ? event.details.calls : [];
        if (calls.some((call) => call.tool === "terminal")) controller.abort();
      },
    });
    expect(result.stopReason).toBe("cancelled");
    const end = events.find((event) => event.type === "tool_end");
    expect(end).toMatchObject({ name: "execute_code", isError: true });
    expect(sleepers("731402")).toEqual([]);
  });
});

describe.skipIf(!usable)("execute_code in the editor", () => {
  it("shows the script at the start, the inner calls as progress lines, then the output", async () => {
    writeFileSync(join(suite.home.workspace, "e.txt"), "e\n");
    suite.llm.push(script("# Peek at e.txt\nfrom hermes_tools import read_file\nprint(read_file('e.txt')['total_lines'])\n", "a1"), { text: "one line" });
    const agent = connectInMemory({ home: suite.home.home, env: suite.home.env() });
    try {
      await agent.initialize();
      const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
      await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
      type ToolUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;
      const updates = agent.updates
        .map((notification) => notification.update)
        .filter((update): update is ToolUpdate => (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") && update.toolCallId === "a1");
      const text = (update: ToolUpdate): string =>
        (update.content ?? []).map((block) => (block.type === "content" && block.content.type === "text" ? block.content.text : "")).join("\n");
      expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "execute", title: "execute_code: Peek at e.txt", status: "in_progress" });
      expect(text(updates[0]!)).toMatch(/^```python\n# Peek at e.txt\n/);
      expect(updates.some((update) => update.sessionUpdate === "tool_call_update" && update.status === "in_progress" && text(update).includes("read_file e.txt"))).toBe(true);
      const last = updates.at(-1)!;
      expect(last).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
      expect(text(last)).toContain("✓ read_file e.txt");
      expect(text(last)).toContain("```\n1\n```\nExit code: 0 · 1 tool call");
    } finally {
      await agent.close();
    }
  });
});

/** Characters of everything sent to the model, and of the messages alone (without the system prompt and tool schemas). */
function sentChars(): { total: number; messages: number } {
  let total = 0;
  let messages = 0;
  for (const request of suite.llm.requests) {
    total += JSON.stringify(request.body).length;
    const sent = request.body.messages as Array<{ role: string }>;
    messages += JSON.stringify(sent.filter((message) => message.role !== "system")).length;
  }
  return { total, messages };
}

describe.skipIf(!usable)("the 40-file survey", () => {
  it("takes one round trip with execute_code and sends a fraction of the characters", async () => {
    const dir = join(suite.home.workspace, "src");
    mkdirSync(dir, { recursive: true });
    const names = Array.from({ length: 40 }, (_, i) => `src/m${String(i).padStart(2, "0")}.ts`);
    names.forEach((name, i) => {
      const lines = Array.from({ length: 60 }, (_, n) => (n === i % 60 ? "// TODO: tidy this module" : `export const value${n} = ${n} * ${i}; // line ${n}`));
      writeFileSync(join(suite.home.workspace, name), `${lines.join("\n")}\n`);
    });
    const survey = async (steps: Array<{ tool_calls: FakeToolCall[] } | { text: string }>) => {
      suite.llm.requests.length = 0;
      suite.llm.push(...steps);
      const session = await suite.open();
      await prompt(session);
      return { requests: suite.llm.requests.length, ...sentChars() };
    };
    const code = [
      "from hermes_tools import read_file",
      `names = ${JSON.stringify(names)}`,
      "todo = [n for n in names if 'TODO' in read_file(n)['content']]",
      "print(len(names), 'files,', len(todo), 'with TODO')",
    ].join("\n");
    const reads = (slice: string[]) => ({ tool_calls: slice.map((name, i) => ({ id: `r${i}_${name}`, name: "read_file", arguments: { path: name } })) });
    const withScript = await survey([script(code, "survey"), { text: "40 files, 40 with TODO" }]);
    expect(toolResult("survey")).toMatchObject({ status: "success", output: "40 files, 40 with TODO", tool_calls_made: 40 });
    const oneBatch = await survey([reads(names), { text: "done" }]);
    const fourBatches = await survey([reads(names.slice(0, 10)), reads(names.slice(10, 20)), reads(names.slice(20, 30)), reads(names.slice(30)), { text: "done" }]);
    const oneByOne = await survey([...names.map((name) => reads([name])), { text: "done" }]);
    process.stderr.write(
      `40-file survey (requests, chars sent in all, chars of messages):\n` +
        `  execute_code:        ${withScript.requests}, ${withScript.total}, ${withScript.messages}\n` +
        `  40 read_file, 1 batch: ${oneBatch.requests}, ${oneBatch.total}, ${oneBatch.messages}\n` +
        `  40 read_file, 4 batches: ${fourBatches.requests}, ${fourBatches.total}, ${fourBatches.messages}\n` +
        `  40 read_file, one per round: ${oneByOne.requests}, ${oneByOne.total}, ${oneByOne.messages}\n`,
    );
    expect(withScript.requests).toBe(2);
    expect(oneBatch.requests).toBe(2);
    expect(fourBatches.requests).toBe(5);
    expect(oneByOne.requests).toBe(41);
    expect(withScript.messages * 20).toBeLessThan(oneBatch.messages);
    expect(oneBatch.total).toBeLessThan(fourBatches.total);
  });
});
