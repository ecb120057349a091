import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCall } from "../llm/types.js";
import { argumentsProblem, prepareToolCall } from "./prepared-call.js";
import { ToolRegistry } from "./registry.js";
import { defineTool } from "./types.js";

let validations = 0;
let descriptions = 0;
const counted = z.object({ text: z.string(), n: z.coerce.number().optional() }).transform((args) => {
  validations += 1;
  return args;
});
const echo = defineTool({
  name: "echo",
  description: "echo",
  kind: "read",
  mutating: false,
  params: counted,
  describe: (args) => {
    descriptions += 1;
    return { title: `echo: ${args.text}`, locations: [{ path: `/w/${args.text}` }] };
  },
  execute: async (args) => ({ content: args.text }),
});
const throwing = defineTool({
  name: "throws",
  description: "describe throws",
  kind: "edit",
  mutating: true,
  params: z.object({}),
  describe: () => {
    throw new Error("boom");
  },
  execute: async () => ({ content: "" }),
});
const tools = new ToolRegistry([echo, throwing]);
const call = (name: string, args: string, id = "c1"): ToolCall => ({ id, type: "function", function: { name, arguments: args } });

describe("prepareToolCall", () => {
  it("parses, validates and describes a call exactly once", () => {
    validations = 0;
    descriptions = 0;
    const prepared = prepareToolCall(call("echo", '{"text":"a","n":"3"}'), tools, { cwd: "/w" });
    expect(validations).toBe(1);
    expect(descriptions).toBe(1);
    expect(prepared).toMatchObject({
      callId: "c1",
      name: "echo",
      tool: echo,
      json: { ok: true, value: { text: "a", n: "3" } },
      validation: { ok: true, args: { text: "a", n: 3 } },
      args: { text: "a", n: 3 },
      displayArgs: { text: "a", n: "3" },
      kind: "read",
      title: "echo: a",
      locations: [{ path: "/w/a" }],
    });
    expect(argumentsProblem(prepared)).toBeUndefined();
  });

  it("gives equal dedup keys to calls that differ only in key order and spacing", () => {
    const one = prepareToolCall(call("echo", '{"text":"a","n":1}'), tools, { cwd: "/w" });
    const two = prepareToolCall(call("echo", '{ "n": 1, "text": "a" }', "c2"), tools, { cwd: "/w" });
    const other = prepareToolCall(call("echo", '{"text":"b","n":1}', "c3"), tools, { cwd: "/w" });
    expect(one.dedupKey).toBeDefined();
    expect(two.dedupKey).toBe(one.dedupKey);
    expect(other.dedupKey).not.toBe(one.dedupKey);
  });

  it("keeps bad JSON's complaint and shows the raw text, without validating or a dedup key", () => {
    const prepared = prepareToolCall(call("echo", '{"text":'), tools, { cwd: "/w" });
    expect(prepared.json.ok).toBe(false);
    expect(prepared).toMatchObject({ validation: undefined, args: undefined, dedupKey: undefined, displayArgs: { raw: '{"text":' }, title: "echo" });
    expect(argumentsProblem(prepared)).toMatch(/^Invalid JSON in arguments for echo: .+ You sent: \{"text":\nThe tool was not run\./);
  });

  it("keeps zod's issues for arguments that do not validate and names the field to the model", () => {
    const prepared = prepareToolCall(call("echo", '{"text":5}'), tools, { cwd: "/w" });
    expect(prepared.validation).toMatchObject({ ok: false, issues: [{ path: ["text"] }] });
    expect(prepared).toMatchObject({ args: undefined, dedupKey: undefined, displayArgs: { text: 5 }, title: "echo", locations: [] });
    expect(argumentsProblem(prepared)).toMatch(/^Invalid arguments for echo: text: .+\. The tool was not run; call it again with corrected arguments\.$/);
  });

  it("treats blank arguments as {} and an unknown tool as kind other, with no problem of its own", () => {
    const blank = prepareToolCall(call("throws", "  "), tools, { cwd: "/w" });
    expect(blank).toMatchObject({ json: { ok: true, value: {} }, args: {}, displayArgs: {}, title: "throws", kind: "edit" });
    const unknown = prepareToolCall(call("nope", '{"a":1}'), tools, { cwd: "/w" });
    expect(unknown).toMatchObject({ tool: undefined, validation: undefined, dedupKey: undefined, displayArgs: { a: 1 }, kind: "other", title: "nope" });
    expect(argumentsProblem(unknown)).toBeUndefined();
  });
});
