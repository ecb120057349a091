import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../config/schema.js";
import { hermesAcpTools } from "../../tools/toolsets.js";
import type { AnyTool } from "../../tools/types.js";
import { CHILD_BLOCKED_TOOLS, childTools } from "./child-toolset.js";

const env = { PATH: process.env.PATH ?? "" };
const mcpTool = { ...hermesAcpTools()[0]!, name: "mcp__github__search" } as AnyTool;
const parent = [...hermesAcpTools(), mcpTool];
const names = (tools: AnyTool[]) => tools.map((tool) => tool.name);

describe("childTools", () => {
  it("gives a leaf the parent's tools minus delegate_task, clarify, memory and execute_code", () => {
    const tools = names(childTools(parent, { role: "leaf", config: defaultConfig(), env }));
    for (const blocked of CHILD_BLOCKED_TOOLS) expect(tools).not.toContain(blocked);
    expect(tools).toContain("read_file");
    expect(tools).toContain("mcp__github__search");
  });

  it("narrows to the toolsets asked for, never beyond the parent's, keeping its MCP tools", () => {
    const onlyFiles = parent.filter((tool) => tool.name !== "patch");
    expect(names(childTools(onlyFiles, { toolsets: ["file", "memory", "no-such"], role: "leaf", config: defaultConfig(), env }))).toEqual(["read_file", "write_file", "search_files", "mcp__github__search"]);
    expect(names(childTools(parent, { toolsets: ["todo"], role: "leaf", config: defaultConfig(), env }))).toEqual(["todo", "mcp__github__search"]);
  });

  it("gives an orchestrator delegate_task back, whatever the parent has", () => {
    const withoutDelegation = parent.filter((tool) => tool.name !== "delegate_task");
    expect(names(childTools(withoutDelegation, { toolsets: ["file"], role: "orchestrator", config: defaultConfig(), env })).at(-1)).toBe("delegate_task");
  });
});
