import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../llm/types.js";
import { VERSION } from "../../shared/version.js";
import { ToolRegistry } from "../../tools/registry.js";
import { hermesAcpTools } from "../../tools/toolsets.js";
import { contextUsageLines, grouped } from "./context.js";
import { availableCommands, availableCommandsUpdate, COMMANDS, parseSlashCommand, runCommand } from "./registry.js";
import { shortDescription } from "./tools.js";
import type { CommandContext, CommandResult, CommandSession } from "./types.js";

function fakeSession(overrides: Partial<CommandSession> = {}): CommandSession & { history: ChatMessage[] } {
  const history: ChatMessage[] = [];
  return {
    id: "sess-1",
    cwd: "/work/project",
    model: "test-model",
    providerId: "custom",
    history,
    tools: new ToolRegistry(hermesAcpTools()),
    currentTitle: null,
    approvals: { mode: "default" },
    resetHistory() {
      history.length = 0;
    },
    contextUsage: () => ({ tokens: 1_000, window: 128_000, threshold: 0.5, enabled: true }),
    compress: async () => {
      throw new Error("the model is unreachable");
    },
    ...overrides,
  } as CommandSession & { history: ChatMessage[] };
}

function context(session: CommandSession = fakeSession(), overrides: Partial<CommandContext> = {}): CommandContext & { queued: string[]; steered: string[] } {
  const queued: string[] = [];
  const steered: string[] = [];
  return {
    session,
    commands: COMMANDS,
    turnActive: false,
    queueLength: 0,
    enqueue: (text) => queued.push(text),
    steer: (text) => void steered.push(text),
    clearInterrupted: () => undefined,
    switchModel: async (value) => {
      if (value === "nope:model") throw new Error('unknown provider "nope"');
      return { model: value.split(":").at(-1) ?? value, provider: value.includes(":") ? (value.split(":")[0] ?? "") : "custom" };
    },
    signal: new AbortController().signal,
    queued,
    steered,
    ...overrides,
  };
}

async function run(text: string, ctx: CommandContext = context()): Promise<CommandResult> {
  const invocation = parseSlashCommand(text);
  if (!invocation) throw new Error(`${text} is not a command`);
  return runCommand(invocation, ctx);
}

async function replyOf(text: string, ctx?: CommandContext): Promise<string> {
  const result = await run(text, ctx);
  if (!("reply" in result)) throw new Error(`${text} did not reply`);
  return result.reply;
}

describe("slash command dispatch", () => {
  it("advertises the commands in order, with hints where they take input", () => {
    expect(availableCommands().map((command) => command.name)).toEqual([
      "help",
      "model",
      "tools",
      "context",
      "reset",
      "compress",
      "rollback",
      "steer",
      "queue",
      "version",
      "status",
    ]);
    const byName = Object.fromEntries(availableCommands().map((command) => [command.name, command]));
    expect(byName.help).toEqual({ name: "help", description: "List available commands", input: null });
    expect(byName.model?.input).toEqual({ hint: "model name to switch to" });
    expect(byName.steer?.input).toEqual({ hint: "guidance for the active turn" });
    expect(byName.queue?.input).toEqual({ hint: "prompt to run next" });
    expect(availableCommandsUpdate()).toMatchObject({ sessionUpdate: "available_commands_update" });
  });

  it("parses the first word case-insensitively and keeps the rest as arguments", () => {
    expect(parseSlashCommand("/HELP")?.command.name).toBe("help");
    expect(parseSlashCommand("  /queue  run the tests\nthen lint ")).toMatchObject({ args: "run the tests\nthen lint" });
    expect(parseSlashCommand("/steer")).toMatchObject({ args: "" });
  });

  it("leaves unknown words, paths and plain text to the model", () => {
    expect(parseSlashCommand("/frobnicate now")).toBeUndefined();
    expect(parseSlashCommand("/etc/hosts is broken")).toBeUndefined();
    expect(parseSlashCommand("/")).toBeUndefined();
    expect(parseSlashCommand("help")).toBeUndefined();
    expect(parseSlashCommand("please /help")).toBeUndefined();
  });

  it("turns a command's error into a reply naming the command", async () => {
    const session = fakeSession({
      resetHistory() {
        throw new Error("disk on fire");
      },
    });
    expect(await replyOf("/reset", context(session))).toBe("Error executing /reset: disk on fire");
  });

  it("marks only the commands that change the session as exclusive", () => {
    const exclusive = (text: string): boolean => {
      const invocation = parseSlashCommand(text)!;
      return invocation.command.exclusive?.(invocation.args) ?? false;
    };
    expect(exclusive("/reset")).toBe(true);
    expect(exclusive("/compress")).toBe(true);
    expect(exclusive("/model other:model")).toBe(true);
    expect(exclusive("/model")).toBe(false);
    for (const text of ["/help", "/tools", "/context", "/status", "/version", "/steer x", "/queue x"]) expect(exclusive(text), text).toBe(false);
  });
});

describe("slash commands", () => {
  it("/help lists every command and says unknown /commands go to the model", async () => {
    const text = await replyOf("/help");
    for (const command of COMMANDS) expect(text).toContain(`/${command.name}`);
    expect(text).toContain("  /model       Show or change current model");
    expect(text).toContain("Unrecognized /commands are sent to the model as normal messages.");
  });

  it("/version names the version", async () => {
    expect(await replyOf("/version")).toBe(`Hermes Agent v${VERSION}`);
  });

  it("/model shows the model and provider, and switches with an argument", async () => {
    expect(await replyOf("/model")).toBe("Current model: test-model\nProvider: custom");
    expect(await replyOf("/model openai:gpt-5")).toBe("Model switched to: gpt-5\nProvider: openai");
    expect(await replyOf("/model nope:model")).toBe('Error executing /model: unknown provider "nope"');
  });

  it("/tools lists each tool with a short description", async () => {
    const text = await replyOf("/tools");
    const tools = hermesAcpTools();
    expect(text.split("\n")[0]).toBe(`Available tools (${tools.length}):`);
    for (const tool of tools) expect(text).toContain(`  ${tool.name}: `);
    for (const line of text.split("\n").slice(1)) expect(line.length).toBeLessThanOrEqual(2 + 40 + 2 + 80);
    expect(await replyOf("/tools", context(fakeSession({ tools: new ToolRegistry() })))).toBe("No tools available.");
  });

  it("shortens a tool description to its first line and 80 characters", () => {
    expect(shortDescription("  Read a file.\nMore detail.")).toBe("Read a file.");
    const long = shortDescription("word ".repeat(40));
    expect(long).toHaveLength(80);
    expect(long.endsWith("...")).toBe(true);
  });

  it("/context counts messages by role", async () => {
    expect(await replyOf("/context")).toContain("Conversation is empty (no messages yet).");
    const session = fakeSession();
    session.history.push({ role: "user", content: "hi" }, { role: "assistant", content: "hello" });
    const text = await replyOf("/context", context(session));
    expect(text).toContain("Conversation: 2 messages");
    expect(text).toContain("user: 1, assistant: 1, tool: 0");
    expect(text).toContain("Model: test-model");
    expect(text).toContain("Context usage: ~1,000 / 128,000 tokens (0.8%)");
  });

  it("/context shows usage against the window and the distance to the threshold", async () => {
    const session = fakeSession({ contextUsage: () => ({ tokens: 25_000, window: 100_000, threshold: 0.8, enabled: true }) });
    const text = await replyOf("/context", context(session));
    expect(text).toContain("Context usage: ~25,000 / 100,000 tokens (25.0%)");
    expect(text).toContain("Compression: ~55,000 tokens until threshold (~80,000, 80%).");
    expect(contextUsageLines({ tokens: 90_000, window: 100_000, threshold: 0.5, enabled: false })).toEqual([
      "Context usage: ~90,000 / 100,000 tokens (90.0%)",
      "Compression: due now (threshold ~50,000, 50%). Run /compress.",
      "Auto-compaction is disabled (compression.enabled: false); /compress still compresses manually.",
    ]);
    expect(grouped(1234567)).toBe("1,234,567");
  });

  it("/reset clears the history and forgets an interrupted prompt", async () => {
    let cleared = false;
    const session = fakeSession();
    session.history.push({ role: "user", content: "hi" });
    expect(await replyOf("/reset", context(session, { clearInterrupted: () => void (cleared = true) }))).toBe("Conversation history cleared.");
    expect(session.history).toEqual([]);
    expect(cleared).toBe(true);
  });

  it("/compress reports what changed, or why it cannot", async () => {
    expect(await replyOf("/compress")).toBe("Nothing to compress — conversation is empty.");
    const session = fakeSession();
    session.history.push({ role: "user", content: "hi" });
    expect(await replyOf("/compress", context(session))).toBe("Error executing /compress: the model is unreachable");
    const nothing = { compressed: false, beforeMessages: 1, afterMessages: 1, beforeTokens: 9, afterTokens: 9, text: "Nothing to compress: 1 messages" };
    const unchanged = fakeSession({ compress: async () => nothing });
    unchanged.history.push({ role: "user", content: "hi" });
    expect(await replyOf("/compress", context(unchanged))).toBe("Nothing to compress: 1 messages");
    const report = { compressed: true, beforeMessages: 4, afterMessages: 1, beforeTokens: 40, afterTokens: 12, text: "4 -> 1 messages, ~40 -> ~12 tokens" };
    const compressing = fakeSession({ compress: async () => report });
    compressing.history.push({ role: "user", content: "hi" });
    expect(await replyOf("/compress", context(compressing))).toBe("Context compressed: 4 -> 1 messages, ~40 -> ~12 tokens");
  });

  it("/steer hands guidance to a running turn, and runs it as a prompt when idle", async () => {
    const busy = context(fakeSession(), { turnActive: true });
    expect(await replyOf("/steer prefer the simpler fix", busy)).toBe("⏩ Steer queued for the active turn: prefer the simpler fix");
    expect(busy.steered).toEqual(["prefer the simpler fix"]);
    const idle = context();
    expect(await run("/steer summarize the README", idle)).toEqual({ prompt: "summarize the README" });
    expect(idle.steered).toEqual([]);
    expect(await replyOf("/steer")).toBe("Usage: /steer <guidance>");
  });

  it("/queue queues the prompt and reports the count", async () => {
    const ctx = context();
    expect(await replyOf("/queue then run tests", ctx)).toBe("Queued for the next turn. (1 queued)");
    expect(ctx.queued).toEqual(["then run tests"]);
    expect(await replyOf("/queue")).toBe("Usage: /queue <prompt>");
  });

  it("/status shows the session, model, counts, turn and queue", async () => {
    const session = fakeSession({ currentTitle: "Fix the build" });
    session.history.push({ role: "user", content: "hi" }, { role: "assistant", content: "hello" });
    const text = await replyOf("/status", context(session, { turnActive: true, queueLength: 2 }));
    expect(text).toContain("Session: sess-1");
    expect(text).toContain("Title: Fix the build");
    expect(text).toContain("Model: test-model");
    expect(text).toContain("Provider: custom");
    expect(text).toContain("Messages: 2 messages (user: 1, assistant: 1, tool: 0)");
    expect(text).toContain("Turn: running");
    expect(text).toContain("Queued prompts: 2");
  });
});
