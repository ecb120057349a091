import { describe, expect, it } from "vitest";
import { toolEndEvent, toolProgressEvent, toolStartEvent, type ToolEndEvent, type ToolStartEvent } from "../agent/events.js";
import { prepareToolCall, type PreparedToolCall } from "../tools/prepared-call.js";
import { ToolRegistry } from "../tools/registry.js";
import { hermesAcpTools } from "../tools/toolsets.js";
import { compactionUpdates, toSessionUpdates, wantsCompactionUpdates } from "./event-bridge.js";
import { structuredFailure } from "./render/generic.js";
import { clearRegisteredSecrets, redactRegisteredSecrets, registerSecret } from "../config/redact.js";
import { abandonedToolUpdate, fenced, rawToolOutput, toolEndUpdate, toolProgressUpdate, toolStartUpdate } from "./tool-render.js";

const TOOLS = new ToolRegistry(hermesAcpTools());

/** A call as the model would send it, prepared against the real tools (cwd `/w`). */
function prepared(name: string, args: unknown = {}): PreparedToolCall {
  return prepareToolCall({ id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } }, TOOLS, { cwd: "/w" });
}
const start = (name: string, args?: unknown): ToolStartEvent => toolStartEvent(prepared(name, args));
const end = (name: string, result: { content?: string; isError?: boolean; details?: unknown }, args?: unknown): ToolEndEvent =>
  toolEndEvent(prepared(name, args), { content: result.content ?? "", isError: result.isError ?? false, details: result.details });
const texts = (update: unknown): string =>
  ((update as { content?: Array<{ type: string; content?: { text?: string } }> }).content ?? []).map((block) => block.content?.text ?? "").join("\n");

describe("tool start", () => {
  it("starts a read with title, kind, locations and raw input but no content", () => {
    expect(toolStartUpdate(start("read_file", { path: "a.ts", offset: 3 }))).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "c1",
      title: "read: a.ts",
      name: "read_file",
      kind: "read",
      status: "in_progress",
      locations: [{ path: "/w/a.ts", line: 3 }],
      rawInput: { path: "a.ts", offset: 3 },
      _meta: { hermes: { toolName: "read_file" } },
      content: [],
    });
  });

  it("shows an auto-approved edit's diff on the start instead of the preparing text", () => {
    const plain = start("write_file", { path: "a.ts", content: "new\n" });
    expect(texts(toolStartUpdate(plain))).toBe("Preparing write to a.ts.");
    const update = toolStartUpdate({ ...plain, edits: [{ path: "/w/a.ts", oldText: "old\n", newText: "new\n" }] });
    expect(update).toMatchObject({ kind: "edit", name: "write_file", content: [{ type: "diff", path: "/w/a.ts", oldText: "old\n", newText: "new\n" }] });
    expect((update as { content: unknown[] }).content).toHaveLength(1);
  });

  it("shows `$ <command>` for terminal and the search for search_files", () => {
    expect(texts(toolStartUpdate(start("terminal", { command: "npm test" })))).toBe("$ npm test");
    expect(texts(toolStartUpdate(start("search_files", { pattern: "TODO", path: "src" })))).toBe("Searching for 'TODO' (content) in src");
  });

  it("lists todo items at start", () => {
    const update = toolStartUpdate(start("todo", { todos: [{ id: "1", content: "write tests", status: "pending" }] }));
    expect(texts(update)).toBe("Updating todo list\n\n- pending: write tests");
  });

  it("shows unknown tools' arguments as JSON and falls back to the tool name for a missing title", () => {
    const update = toolStartUpdate({ ...start("mystery", { q: 1 }), title: "" });
    expect(update).toMatchObject({ title: "mystery", kind: "other", rawInput: { q: 1 } });
    expect(texts(update)).toBe('{\n  "q": 1\n}');
    expect(toolStartUpdate(start("mystery"))).toMatchObject({ content: [] });
  });

  it("types a call's arguments only when they validate, and shows unparseable ones as `{ raw }`", () => {
    expect(start("terminal", { command: "ls" })).toMatchObject({ tool: "terminal", input: { command: "ls" } });
    expect(start("terminal", { command: 7 })).not.toHaveProperty("input");
    expect(texts(toolStartUpdate(start("terminal", { command: 7 })))).toBe("");
    const broken = toolStartEvent(prepareToolCall({ id: "c2", type: "function", function: { name: "terminal", arguments: '{"command":' } }, TOOLS, { cwd: "/w" }));
    expect(toolStartUpdate(broken)).toMatchObject({ title: "terminal", rawInput: { raw: '{"command":' } });
  });
});

describe("tool completion", () => {
  it("completes a read with a header and a fence longer than any backtick run in the file", () => {
    const update = toolEndUpdate(end("read_file", { content: "{}", details: { path: "/w/a.md", offset: 1, limit: 500, totalLines: 2, content: "1|```js\n2|x" } }));
    expect(update).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
    expect(texts(update)).toBe("Read /w/a.md — 2 total lines\n\n````\n1|```js\n2|x\n````");
  });

  it("shows a failed read's error text, from its details or else from the error JSON", () => {
    const update = toolEndUpdate(end("read_file", { content: '{"error":"File not found: x"}', isError: true, details: { path: "/w/x", error: "File not found: x" } }));
    expect(update).toMatchObject({ status: "failed" });
    expect(texts(update)).toBe("Read failed: File not found: x");
    expect(texts(toolEndUpdate(end("read_file", { content: '{"error":"File not found: x"}', isError: true })))).toBe("Read failed: File not found: x");
  });

  it("fails a terminal call on a non-zero exit code, not on the word error in its output", () => {
    const ok = toolEndUpdate(end("terminal", { details: { command: "echo", cwd: "/w", exitCode: 0, output: "error: none of this matters" } }));
    expect(ok).toMatchObject({ status: "completed" });
    expect(texts(ok)).toContain("Exit code: 0");
    const bad = toolEndUpdate(end("terminal", { details: { command: "false", cwd: "/w", exitCode: 1, output: "" } }));
    expect(bad).toMatchObject({ status: "failed" });
  });

  it("shows a refused command's reason from its details", () => {
    const refused = toolEndUpdate(
      end("terminal", { content: "{}", isError: true, details: { command: "rm -rf /", cwd: "/w", exitCode: -1, output: "", error: "Blocked: never run", refused: { reason: "hardline", patternKey: "rm_root" } } }),
    );
    expect(refused).toMatchObject({ status: "failed" });
    expect(texts(refused)).toBe("Blocked: never run");
  });

  it("embeds the editor's terminal instead of copying its output, while running and at the end", () => {
    const progress = toolProgressUpdate(toolProgressEvent(prepared("terminal", { command: "make" }), { command: "make", cwd: "/w", running: true, terminalId: "t-9" }));
    expect(progress).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "t-9" }],
      _meta: { hermes: { toolName: "terminal" } },
    });
    const done = toolEndUpdate(end("terminal", { details: { command: "make", cwd: "/w", exitCode: 2, output: "boom", terminalId: "t-9" } }));
    expect(done).toMatchObject({ status: "failed", content: [{ type: "terminal", terminalId: "t-9" }, { type: "content", content: { type: "text", text: "Exit code: 2" } }] });
    const streaming = toolProgressUpdate(toolProgressEvent(prepared("terminal", { command: "make" }), { command: "make", cwd: "/w", running: true, output: "50%" }));
    expect(streaming).toMatchObject({ status: "in_progress" });
    expect(texts(streaming)).toBe("```\n50%\n```");
  });

  it("renders edits as diff blocks", () => {
    const update = toolEndUpdate(end("patch", { details: { mode: "replace", files: [{ path: "/w/a.ts", oldText: "a\n", newText: "b\n" }], diff: "" } }));
    expect(update).toMatchObject({ status: "completed", content: [{ type: "diff", path: "/w/a.ts", oldText: "a\n", newText: "b\n" }] });
    const created = toolEndUpdate(end("write_file", { details: { path: "/w/new.ts", oldText: null, newText: "x", diff: "" } }));
    expect(created).toMatchObject({ content: [{ type: "diff", path: "/w/new.ts", oldText: null, newText: "x" }] });
  });

  it("reports a failed edit with the tool, path and error", () => {
    const update = toolEndUpdate(end("write_file", { content: '{"error":"Edit approval denied"}', isError: true, details: { path: "/w/a.ts", error: "Edit approval denied" } }, { path: "a.ts", content: "x" }));
    expect(texts(update)).toBe("write_file failed for a.ts: Edit approval denied");
  });

  it("summarises search results", () => {
    const update = toolEndUpdate(
      end("search_files", {
        details: {
          mode: "content",
          target: "content",
          pattern: "x",
          path: "/w",
          total: 2,
          truncated: false,
          matches: [
            { path: "a.ts", line: 3, text: "  const   x = 1" },
            { path: "b.ts", line: 9, text: "y" },
          ],
        },
      }),
    );
    expect(texts(update)).toBe("Search results\nFound 2 matches; showing 2.\n- a.ts:3  const x = 1\n- b.ts:9  y");
  });

  it("counts matches and files as Hermes words them", () => {
    const base = { mode: "content" as const, target: "content" as const, pattern: "x", path: "/w", truncated: false };
    const one = toolEndUpdate(end("search_files", { details: { ...base, total: 1, matches: [{ path: "a.ts", line: 1, text: "x" }] } }));
    expect(texts(one)).toContain("Found 1 match; showing 1.");
    const files = { ...base, mode: "files_only" as const, target: "files" as const };
    expect(texts(toolEndUpdate(end("search_files", { details: { ...files, total: 1, files: ["a.ts"] } })))).toContain("Found 1 file; showing 1.");
    expect(texts(toolEndUpdate(end("search_files", { details: { ...files, total: 2, files: ["a.ts", "b.ts"] } })))).toContain("Found 2 files; showing 2.");
  });

  it("carries the raw result as rawOutput (JSON parsed, text and long strings cut like display text) and the tool's name", () => {
    const done = toolEndUpdate(end("terminal", { content: '{"output":"hi","exit_code":0}', details: { command: "echo hi", cwd: "/w", exitCode: 0, output: "hi" } }));
    expect(done).toMatchObject({ rawOutput: { output: "hi", exit_code: 0 }, _meta: { hermes: { toolName: "terminal" } } });
    const plain = toolEndUpdate(end("mystery", { content: "x".repeat(20_000) })) as { rawOutput: string };
    expect(plain.rawOutput.length).toBeLessThanOrEqual(5000);
    expect(plain.rawOutput).toContain("20000 chars total, truncated");
    const nested = rawToolOutput(JSON.stringify({ content: "y".repeat(9000), items: Array.from({ length: 60 }, (_, i) => i) })) as { content: string; items: unknown[] };
    expect(nested.content).toContain("9000 chars total, truncated");
    expect(nested.items).toHaveLength(51);
    expect(nested.items.at(-1)).toBe("... 10 more items");
    const failed = toolEndUpdate(end("terminal", { content: "Unknown tool 'terminal'", isError: true }));
    expect(failed).toMatchObject({ rawOutput: "Unknown tool 'terminal'" });
  });

  it("truncates long generic results for display and fails them only on structured signals", () => {
    const update = toolEndUpdate(end("other", { content: "x".repeat(20_000) }));
    const text = texts(update);
    expect(text.length).toBeLessThanOrEqual(7000);
    expect(text).toContain("20000 chars total, truncated");
    expect(toolEndUpdate(end("x", { content: "there was an error" }))).toMatchObject({ status: "completed" });
    expect(toolEndUpdate(end("x", { content: '{"success": false}' }))).toMatchObject({ status: "failed" });
  });

  it("shows a built-in tool's plain text when it has no details", () => {
    expect(toolEndUpdate(end("terminal", { content: "Unknown tool 'terminal'", isError: true }))).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Unknown tool 'terminal'" } }],
    });
  });

  it("closes an abandoned call as failed", () => {
    expect(abandonedToolUpdate("c9")).toMatchObject({ toolCallId: "c9", status: "failed" });
    expect(texts(abandonedToolUpdate("c9"))).toBe("This tool call ended without a result (blocked, denied, or interrupted).");
  });

  it("fences plain text with three backticks", () => {
    expect(fenced("a")).toBe("```\na\n```");
  });
});

describe("structured failure", () => {
  it.each([
    [{ success: false }, true],
    [{ ok: false }, true],
    [{ exit_code: 2 }, true],
    [{ returncode: 1 }, true],
    [{ error: "boom" }, true],
    [{ error: "boom", content: "partial" }, false],
    [{ exit_code: 0 }, false],
    ["error everywhere", false],
    [undefined, false],
  ])("%j → %s", (result, failed) => {
    expect(structuredFailure(result)).toBe(failed);
  });
});

describe("plan", () => {
  it("sends the plan after a todo call completes", () => {
    const details = { todos: [{ id: "1", content: "a", status: "pending" }], summary: { total: 1, pending: 1, in_progress: 0, completed: 0, cancelled: 0 } };
    const updates = toSessionUpdates(end("todo", { details }));
    expect(updates.map((update) => update.sessionUpdate)).toEqual(["tool_call_update", "plan"]);
  });
});

describe("event bridge", () => {
  it("maps deltas to chunks carrying the message id and drops internal events", () => {
    expect(toSessionUpdates({ type: "message_delta", messageId: "m1", text: "hi" })).toEqual([
      { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } },
    ]);
    expect(toSessionUpdates({ type: "reasoning_delta", messageId: "m1", text: "hmm" })[0]).toMatchObject({ sessionUpdate: "agent_thought_chunk", messageId: "m1" });
    expect(toSessionUpdates({ type: "message_end", messageId: "m1" })).toEqual([]);
    expect(toSessionUpdates({ type: "turn_end", stopReason: "end_turn" })).toEqual([]);
  });
});

describe("compaction", () => {
  const completed = (trigger: "auto" | "manual" | "overflow") =>
    ({
      type: "compaction",
      compactionId: "k1",
      trigger,
      status: "completed",
      beforeMessages: 40,
      afterMessages: 12,
      beforeTokens: 90_000,
      afterTokens: 20_000,
      text: "40 -> 12 messages, ~90,000 -> ~20,000 tokens",
      summary: "We set up CI.",
    }) as const;

  it("reads the client's session.compaction capability", () => {
    expect(wantsCompactionUpdates({ session: { compaction: {} } })).toBe(true);
    expect(wantsCompactionUpdates({ session: { compaction: null } })).toBe(false);
    expect(wantsCompactionUpdates({})).toBe(false);
  });

  it("gives an opted-in client compaction_updates under one id", () => {
    expect(compactionUpdates({ type: "compaction", compactionId: "k1", trigger: "auto", status: "started" }, true)).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "k1", status: "in_progress", _meta: { hermes: { trigger: "auto" } } },
    ]);
    expect(compactionUpdates(completed("auto"), true)).toEqual([
      {
        sessionUpdate: "compaction_update",
        compactionId: "k1",
        status: "completed",
        summary: [
          { type: "text", text: "Context compressed: 40 -> 12 messages, ~90,000 -> ~20,000 tokens" },
          { type: "text", text: "We set up CI." },
        ],
        _meta: { hermes: { trigger: "auto", beforeMessages: 40, afterMessages: 12, beforeTokens: 90_000, afterTokens: 20_000 } },
      },
    ]);
    expect(compactionUpdates({ type: "compaction", compactionId: "k2", trigger: "overflow", status: "failed", error: "boom" }, true)).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "k2", status: "failed", error: "boom" },
    ]);
    expect(compactionUpdates({ type: "compaction", compactionId: "k3", trigger: "manual", status: "cancelled" }, true)).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "k3", status: "cancelled" },
    ]);
  });

  it("gives any other client one agent line when a compression completes, none for /compress (its reply says it)", () => {
    expect(compactionUpdates({ type: "compaction", compactionId: "k1", trigger: "auto", status: "started" }, false)).toEqual([]);
    const [line, ...rest] = compactionUpdates(completed("overflow"), false);
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Context compressed: 40 -> 12 messages, ~90,000 -> ~20,000 tokens\n\n" } });
    expect(compactionUpdates(completed("manual"), false)).toEqual([]);
    expect(compactionUpdates({ type: "compaction", compactionId: "k2", trigger: "auto", status: "failed", error: "boom" }, false)).toEqual([]);
  });
});

describe("raw fields carry no secret the agent holds", () => {
  const SECRET = "sk-or-v1-rawfield0123456789abcdef";
  const escaped = SECRET.replace("r", "\\u0072");

  it("masks a registered secret a JSON result spells with \\u escapes (the parsed rawOutput would decode it)", () => {
    registerSecret(SECRET);
    try {
      const content = `{"token":"${escaped}","${escaped}":1,"nested":[{"v":"${escaped}"}]}`;
      // The text form is not the secret, so redaction of the text left it alone.
      expect(redactRegisteredSecrets(content)).toBe(content);
      const raw = JSON.stringify(toolEndUpdate(end("mystery", { content })));
      expect(raw).not.toContain(SECRET);
      expect(JSON.stringify(rawToolOutput(content))).not.toContain(SECRET);
    } finally {
      clearRegisteredSecrets();
    }
  });

  it("masks a registered secret in the arguments (rawInput, title and the start's text), as the result's text is", () => {
    registerSecret(SECRET);
    try {
      const update = toolStartUpdate(start("terminal", { command: `curl -H "Authorization: Bearer ${SECRET}" https://x`, [SECRET]: [SECRET] }));
      expect(JSON.stringify(update)).not.toContain(SECRET);
      expect(update).toMatchObject({ rawInput: { command: 'curl -H "Authorization: Bearer sk-or-v1-***" https://x' } });
    } finally {
      clearRegisteredSecrets();
    }
  });

  it("sends arguments nested deeper than any real call as a bounded value that serializes", () => {
    const depth = 100_000;
    const deep = `{"command":"ls","x":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const call = prepareToolCall({ id: "d1", type: "function", function: { name: "terminal", arguments: deep } }, TOOLS, { cwd: "/w" });
    const update = toolStartUpdate(toolStartEvent(call));
    expect(update).toMatchObject({ rawInput: { command: "ls" } });
    expect(() => JSON.stringify(update)).not.toThrow();
    expect(() => JSON.stringify(toolEndUpdate(toolEndEvent(call, { content: "done", isError: false })))).not.toThrow();
  });
});
