import { describe, expect, it } from "vitest";
import { z } from "zod";
import { deriveParameters, ToolRegistry } from "./registry.js";
import { TOOL_PARAMETERS } from "./tool-parameters.gen.js";
import { hermesAcpTools } from "./toolsets.js";

describe("the built-in tools' parameter schemas generated at build time", () => {
  it("are current: each is what deriving the tool's zod params gives, key order included (else run `npm run gen:tool-parameters`)", () => {
    const tools = hermesAcpTools();
    expect(Object.keys(TOOL_PARAMETERS)).toEqual(tools.map((tool) => tool.name));
    for (const tool of tools) expect(JSON.stringify(TOOL_PARAMETERS[tool.name]), tool.name).toBe(JSON.stringify(deriveParameters(tool.params)));
  });

  it("are what the registry sends for the built-in tools, and a tool of the same name with other params gets its own", () => {
    const tools = hermesAcpTools();
    const schemas = new ToolRegistry(tools).schemas();
    for (const schema of schemas) expect(schema.parameters).toBe(TOOL_PARAMETERS[schema.name]);
    const readFile = tools.find((tool) => tool.name === "read_file")!;
    const lookalike = { ...readFile, params: z.object({ file: z.string() }) };
    const [own] = new ToolRegistry([lookalike]).schemas();
    expect(own?.parameters).toEqual({ type: "object", properties: { file: { type: "string" } }, required: ["file"] });
    // A copy with the same params shares their schema.
    const [copied] = new ToolRegistry([{ ...readFile, description: "another description" }]).schemas();
    expect(copied?.parameters).toBe(TOOL_PARAMETERS.read_file);
  });
});
