/**
 * Hermes' iteration refund: a tool round that only calls execute_code does not count toward
 * `maxTurns`, within a hard ceiling of twice `maxTurns` model calls with tools. And the
 * `innerTools` port every tool call gets: the same gate, validation and approvals as a direct call.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { echoTool, testTurn } from "../../test/support/agent-turn.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { toolContext } from "../../test/support/tool-context.js";
import { registerSecret } from "../config/redact.js";
import type { CommandApprovalRequest, InnerToolResult } from "../tools/ports.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import { innerToolsPort } from "./inner-tools.js";
import { runTurn } from "./loop.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

/** Stands in for execute_code: calls `echo` through its innerTools port and returns what it got. */
const scriptTool = defineTool({
  name: "execute_code",
  description: "Runs a script",
  kind: "execute",
  mutating: true,
  params: z.object({ code: z.string() }),
  describe: () => ({ title: "execute_code", locations: [] }),
  execute: async (args, ctx) => {
    const inner = await ctx.ports.innerTools?.invoke("echo", { text: args.code }, ctx.signal);
    return { content: inner?.content ?? "no port" };
  },
});

const script = (id: string) => ({ tool_calls: [{ id, name: "execute_code", arguments: { code: id } }] });
const echo = (id: string) => ({ tool_calls: [{ id, name: "echo", arguments: { text: id } }] });

describe("the execute_code refund", () => {
  it("does not count rounds that only call execute_code toward max_turns", async () => {
    llm.push(script("s1"), script("s2"), echo("e1"), { text: "done" });
    const { input, history } = testTurn(llm, { maxTurns: 2, tools: new ToolRegistry([scriptTool, echoTool(new Map())]) });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(4);
    // Without the refund the third call would have been the last one, without tools.
    expect(llm.requests[2]?.body.tools).toBeDefined();
    expect(llm.requests[3]?.body.tools).toBeDefined();
    expect(history.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["echo:s1", "echo:s2", "echo:e1"]);
  });

  it("counts a round that mixes execute_code with another tool", async () => {
    llm.push({ tool_calls: [{ id: "s1", name: "execute_code", arguments: { code: "x" } }, { id: "e1", name: "echo", arguments: { text: "y" } }] }, { text: "final" });
    const { input } = testTurn(llm, { maxTurns: 1, tools: new ToolRegistry([scriptTool, echoTool(new Map())]) });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("max_turn_requests");
    expect(llm.requests[1]?.body.tools).toBeUndefined();
  });

  it("stops a model that only ever calls execute_code after twice max_turns calls", async () => {
    llm.push(script("s1"), script("s2"), script("s3"), script("s4"), { text: "final" });
    const { input } = testTurn(llm, { maxTurns: 2, tools: new ToolRegistry([scriptTool]) });
    const result = await runTurn(input);
    expect(result.stopReason).toBe("max_turn_requests");
    expect(llm.requests).toHaveLength(5);
    expect(llm.requests[3]?.body.tools).toBeDefined();
    expect(llm.requests[4]?.body.tools).toBeUndefined();
  });
});

describe("innerToolsPort", () => {
  const secret = "sk-inner-port-secret-0123456789abcdef";
  const leaky = defineTool({
    name: "leaky",
    description: "Prints a secret and asks for approval",
    kind: "execute",
    mutating: true,
    params: z.object({ n: z.number() }),
    describe: () => ({ title: "leaky", locations: [] }),
    execute: async (args, ctx) => {
      const allowed = await ctx.ports.approveCommand?.({ callId: ctx.callId, command: "x", patternKey: "k", description: "d" });
      return { content: `n=${args.n} call=${ctx.callId} allowed=${allowed} key=${secret} terminal=${ctx.ports.runInClientTerminal ? "yes" : "no"} inner=${ctx.ports.innerTools ? "yes" : "no"}` };
    },
  });

  it("runs tools with the turn's context, asks approvals on the outer call, masks secrets and cannot recurse", async () => {
    registerSecret(secret);
    const asked: CommandApprovalRequest[] = [];
    const context = toolContext({
      ports: {
        approveCommand: async (request) => {
          asked.push(request);
          return true;
        },
        runInClientTerminal: async () => {
          throw new Error("not for inner calls");
        },
      },
    });
    const port = innerToolsPort({ registry: new ToolRegistry([leaky, scriptTool]), context: () => context, outer: { callId: "outer", name: "execute_code" } });
    const signal = new AbortController().signal;
    const first: InnerToolResult = await port.invoke("leaky", { n: 1 }, signal);
    expect(first).toEqual({ content: "n=1 call=outer:1 allowed=true key=sk-*** terminal=no inner=no", isError: false });
    expect(asked).toMatchObject([{ callId: "outer" }]);
    expect((await port.invoke("leaky", { n: 2 }, signal)).content).toContain("call=outer:2");
    expect(await port.invoke("leaky", { n: "x" }, signal)).toMatchObject({ isError: true, content: expect.stringContaining("Invalid arguments for leaky") });
    expect(await port.invoke("execute_code", { code: "" }, signal)).toMatchObject({ isError: true, content: "'execute_code' cannot be called from inside execute_code." });
    expect(await port.invoke("nope", {}, signal)).toMatchObject({ isError: true, content: expect.stringContaining("Unknown tool 'nope'") });
    expect(port.names()).toEqual(["leaky", "execute_code"]);
  });

  it("refuses what the session's gate refuses, before the tool runs", async () => {
    const runs = new Map<string, number>();
    const port = innerToolsPort({
      registry: new ToolRegistry([echoTool(runs)]),
      context: () => toolContext(),
      outer: { callId: "outer", name: "execute_code" },
      gate: (tool) => `Blocked in Plan mode: '${tool.name}'`,
    });
    expect(await port.invoke("echo", { text: "x" }, new AbortController().signal)).toEqual({ content: "Blocked in Plan mode: 'echo'", isError: true });
    expect(runs.get("echo")).toBeUndefined();
  });
});
