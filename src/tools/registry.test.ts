import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseToolArgs, ToolRegistry } from "./registry.js";
import { hermesAcpTools } from "./toolsets.js";
import { defineTool } from "./types.js";

const probe = defineTool({
  name: "probe",
  description: "A probe.",
  kind: "other",
  mutating: false,
  params: z.object({
    count: z.number().int().min(1),
    maximum: z.string().optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  describe: () => ({ title: "probe", locations: [] }),
  execute: async () => ({ content: "ok" }),
});

describe("tool schemas sent to the model", () => {
  it("leave out keywords that constrain nothing (int bounds of ±2^53−1, string property names, any extra property)", () => {
    const [schema] = new ToolRegistry([probe]).schemas();
    expect(schema?.parameters).toEqual({
      type: "object",
      properties: { count: { type: "integer", minimum: 1 }, maximum: { type: "string" }, extra: { type: "object" } },
      required: ["count"],
    });
    // zod still validates what the schema no longer says
    expect(parseToolArgs(probe, JSON.stringify({ count: 2 ** 60 })).ok).toBe(false);
    expect(parseToolArgs(probe, JSON.stringify({ count: 3, extra: { a: 1 } })).ok).toBe(true);
  });

  it("carry none of them for any hermes-acp tool", () => {
    const text = JSON.stringify(new ToolRegistry(hermesAcpTools()).schemas());
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(text).not.toContain('"propertyNames":{"type":"string"}');
    expect(text).not.toContain('"additionalProperties":{}');
  });
});
