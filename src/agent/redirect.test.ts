import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { toolContext } from "../../test/support/tool-context.js";
import { createOpenAiChatProvider } from "../llm/openai-chat.js";
import type { ChatMessage } from "../llm/types.js";
import { newId } from "../shared/ids.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import type { AgentEvent } from "./events.js";
import { runTurn, type TurnInput } from "./loop.js";
import { ADDITIONAL_CORRECTION, correctionWords, joinCorrections, REDIRECT_MARKER, REDIRECT_PLACEHOLDER, redirectMessages, type TurnRedirect } from "./redirect.js";

describe("redirect messages (Hermes' shape)", () => {
  it("joins corrections waiting together with Hermes' separator", () => {
    expect(joinCorrections([])).toBeUndefined();
    expect(joinCorrections(["first"])).toBe("first");
    expect(joinCorrections(["first", "second"])).toBe(`first\n\n${ADDITIONAL_CORRECTION}\nsecond`);
  });

  it("keeps what was shown as the assistant's message and ends with the user's words", () => {
    const history: ChatMessage[] = [{ role: "user", content: "fix it" }];
    expect(redirectMessages(history, "Looking at foo.ts", "use bar.ts")).toEqual([
      { role: "assistant", content: "Looking at foo.ts", finish_reason: "redirected" },
      {
        role: "user",
        content: `[Context from the interrupted assistant response]\n${REDIRECT_MARKER}\n\nVisible response before the interruption:\n\nLooking at foo.ts\n\nuse bar.ts`,
      },
    ]);
  });

  it("uses a placeholder when nothing was shown, and adds no assistant message after one", () => {
    const afterTool: ChatMessage[] = [{ role: "tool", tool_call_id: "c1", content: "ok" }];
    expect(redirectMessages(afterTool, "  ", "stop")[0]).toEqual({ role: "assistant", content: REDIRECT_PLACEHOLDER, finish_reason: "redirected" });
    const afterAssistant: ChatMessage[] = [{ role: "assistant", content: "done" }];
    expect(redirectMessages(afterAssistant, "", "stop")).toEqual([{ role: "user", content: `[Context from the interrupted assistant response]\n${REDIRECT_MARKER}\n\nstop` }]);
  });

  it("gives back the user's own words of a stored correction, for a replay", () => {
    for (const [history, visible] of [
      [[{ role: "user", content: "fix it" }], "Looking at\n\nfoo.ts"],
      [[{ role: "tool", tool_call_id: "c1", content: "ok" }], ""],
      [[{ role: "assistant", content: "done" }], ""],
    ] as Array<[ChatMessage[], string]>) {
      const added = redirectMessages(history, visible, "use bar.ts\n\nplease");
      const user = added.at(-1)!;
      const previous = added.length === 2 ? added[0] : history.at(-1);
      expect(correctionWords(user.content as string, previous)).toBe("use bar.ts\n\nplease");
    }
    expect(correctionWords("just a prompt", undefined)).toBeUndefined();
  });
});

/** A redirect port the test drives: `send` queues a correction and stops the call being watched. */
function redirectPort(): TurnRedirect & { send(text: string, options?: { abort?: boolean }): void; watched: number } {
  let waiting: string[] = [];
  let call: AbortController | undefined;
  const port = {
    watched: 0,
    watch: () => {
      port.watched += 1;
      call = new AbortController();
      if (waiting.length) call.abort();
      return call.signal;
    },
    take: () => {
      const text = joinCorrections(waiting);
      waiting = [];
      return text;
    },
    send: (text: string, options: { abort?: boolean } = {}) => {
      waiting.push(text);
      if (options.abort !== false) call?.abort();
    },
  };
  return port;
}

describe("runTurn with a redirect port", () => {
  let llm: FakeLlm;
  beforeEach(async () => {
    llm = await startFakeLlm();
  });
  afterEach(async () => {
    await llm.close();
  });

  const echoTool = defineTool({
    name: "echo",
    description: "Echoes its text",
    kind: "other",
    mutating: false,
    params: z.object({ text: z.string() }),
    describe: (args) => ({ title: `echo: ${args.text}`, locations: [] }),
    execute: async (args) => ({ content: `echo:${args.text}` }),
  });

  function input(redirect: TurnRedirect, emit: (event: AgentEvent) => void, history: ChatMessage[]): TurnInput {
    return {
      provider: createOpenAiChatProvider({ id: "custom", baseUrl: llm.baseUrl, apiKey: "no-key-required" }),
      model: "test-model",
      systemPrompt: "SYSTEM",
      tools: new ToolRegistry([echoTool]),
      history,
      user: { role: "user", content: "write the notes" },
      maxTurns: 1,
      toolContext: toolContext({ cwd: "/tmp" }),
      signal: new AbortController().signal,
      emit,
      newMessageId: newId,
      redirect,
    };
  }

  it("stops the call in flight, keeps what it showed, and calls again with the correction (no tool round spent)", async () => {
    llm.push({ text: "Writing notes.txt", chunks: ["Writing", " notes.txt"], stallAfterChunks: 1 }, { tool_calls: [{ id: "c1", name: "echo", arguments: { text: "x" } }] }, { text: "Done." });
    const port = redirectPort();
    const history: ChatMessage[] = [];
    let sent = false;
    const result = await runTurn(
      input(port, (event) => {
        if (event.type === "message_delta" && event.text === "Writing" && !sent) {
          sent = true;
          port.send("call it NOTES.md");
        }
      }, history),
    );
    // maxTurns 1: the redirected call did not use up the one tool round, so the call after it still
    // offered tools and the tool ran; the call after the round is the last one, without tools.
    expect(result.stopReason).toBe("max_turn_requests");
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(history[1]).toEqual({ role: "assistant", content: "Writing", finish_reason: "redirected" });
    const second = llm.requests[1]!.body.messages;
    expect(second.at(-1).content.endsWith("\n\ncall it NOTES.md")).toBe(true);
    expect(llm.requests[1]!.body.tools).toBeDefined();
  });

  it("drops a response that crossed a correction (its tool calls never run) and goes again with it", async () => {
    llm.push({ tool_calls: [{ id: "c1", name: "echo", arguments: { text: "stale" } }] }, { text: "ok" });
    const port = redirectPort();
    const history: ChatMessage[] = [];
    const events: AgentEvent[] = [];
    let sent = false;
    await runTurn(
      input(port, (event) => {
        events.push(event);
        // Arrives as the stale response completes: nothing left to stop.
        if (event.type === "message_end" && !sent) {
          sent = true;
          port.send("never mind, just say ok", { abort: false });
        }
      }, history),
    );
    expect(events.some((event) => event.type === "tool_start")).toBe(false);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(llm.requests[1]!.body.messages.at(-1).content.endsWith("\n\nnever mind, just say ok")).toBe(true);
  });

  it("a correction waiting before a call joins history before it is sent", async () => {
    llm.push({ text: "ok" });
    const port = redirectPort();
    port.send("in French, please");
    const history: ChatMessage[] = [];
    await runTurn(input(port, () => undefined, history));
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.body.messages.slice(1).map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(history[1]).toEqual({ role: "assistant", content: REDIRECT_PLACEHOLDER, finish_reason: "redirected" });
    expect(port.watched).toBe(1);
  });
});
