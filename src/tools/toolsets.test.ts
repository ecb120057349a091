import { describe, expect, it } from "vitest";
import { defaultConfig, type HermesConfig } from "../config/schema.js";
import { resolveToolset, TOOLSETS } from "./toolsets.js";

const withToolsets = (acp: string[] | undefined, disabled: string[] = []): HermesConfig => {
  const config = defaultConfig();
  return { ...config, platform_toolsets: acp ? { acp } : {}, agent: { ...config.agent, disabled_toolsets: disabled } };
};
const names = (config: HermesConfig, env: NodeJS.ProcessEnv = process.env) => resolveToolset(config, env).tools.map((tool) => tool.name);

describe("toolsets", () => {
  it("enables hermes-acp by default, in Hermes' order", () => {
    expect(names(withToolsets(undefined))).toEqual([
      "terminal",
      "process",
      "read_file",
      "write_file",
      "patch",
      "search_files",
      "skills_list",
      "skill_view",
      "skill_manage",
      "todo",
      "memory",
      "session_search",
    ]);
  });

  it("takes platform_toolsets.acp, expanded, minus agent.disabled_toolsets (toolsets or single tools)", () => {
    expect(names(withToolsets(["file", "todo"]))).toEqual(["read_file", "write_file", "patch", "search_files", "todo"]);
    expect(names(withToolsets(undefined, ["terminal", "session_search", "memory", "skills"]))).toEqual(["read_file", "write_file", "patch", "search_files", "todo"]);
    expect(names(withToolsets(["file"], ["patch"]))).toEqual(["read_file", "write_file", "search_files"]);
    expect(names(withToolsets(["hermes-acp", "file"]))).toHaveLength(12);
  });

  it("reports unknown names and keeps going", () => {
    const resolved = resolveToolset(withToolsets(["file", "no-such-set"]));
    expect(resolved.unknown).toEqual(["no-such-set"]);
    expect(resolved.tools.map((tool) => tool.name)).toContain("read_file");
  });

  it("leaves out a tool whose program is missing, saying why", () => {
    const resolved = resolveToolset(withToolsets(undefined), { PATH: "/nonexistent" });
    expect(resolved.tools.map((tool) => tool.name)).not.toContain("terminal");
    expect(resolved.unavailable).toEqual([
      { tool: "terminal", reason: "needs bash on PATH" },
      { tool: "process", reason: "needs bash on PATH" },
    ]);
  });

  it("turns MCP servers off with no_mcp, or one by one with mcp-<name>", () => {
    expect(resolveToolset(withToolsets(undefined)).mcp.enabled).toBe(true);
    expect(resolveToolset(withToolsets(["hermes-acp", "no_mcp"])).mcp.enabled).toBe(false);
    expect([...resolveToolset(withToolsets(undefined, ["mcp-github"])).mcp.disabled]).toEqual(["github"]);
  });

  it("declares every Hermes toolset name the editor build knows, so config.yaml may already name them", () => {
    for (const name of ["file", "terminal", "todo", "session_search", "memory", "skills", "web", "vision", "browser", "code_execution", "delegation", "clarify", "hermes-acp"]) {
      expect(TOOLSETS[name], name).toBeDefined();
    }
  });
});
