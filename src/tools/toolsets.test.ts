import { describe, expect, it } from "vitest";
import { defaultConfig, type HermesConfig } from "../config/schema.js";
import { resolveToolset, TOOLSETS } from "./toolsets.js";

const withToolsets = (acp: string[] | undefined, disabled: string[] = []): HermesConfig => {
  const config = defaultConfig();
  return { ...config, platform_toolsets: acp ? { acp } : {}, agent: { ...config.agent, disabled_toolsets: disabled } };
};
/** No web backend keys: PATH only, a HERMES_HOME without a .env, and no browser (whatever this machine has installed). */
const NO_BROWSER = "/nonexistent/chrome";
const bare: NodeJS.ProcessEnv = { PATH: process.env.PATH, HERMES_HOME: "/nonexistent-hermes-home", CHROME_PATH: NO_BROWSER };
const names = (config: HermesConfig, env: NodeJS.ProcessEnv = bare) => resolveToolset(config, env).tools.map((tool) => tool.name);

const BROWSER_TOOLS = ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_scroll", "browser_back", "browser_press", "browser_get_images", "browser_vision", "browser_console"];

describe("toolsets", () => {
  it("enables hermes-acp by default, in Hermes' order", () => {
    expect(names(withToolsets(undefined))).toEqual([
      "web_extract",
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
      "execute_code",
      "delegate_task",
      "clarify",
    ]);
  });

  it("takes platform_toolsets.acp, expanded, minus agent.disabled_toolsets (toolsets or single tools)", () => {
    expect(names(withToolsets(["file", "todo"]))).toEqual(["read_file", "write_file", "patch", "search_files", "todo"]);
    expect(names(withToolsets(undefined, ["terminal", "session_search", "memory", "skills"]))).toEqual(["web_extract", "read_file", "write_file", "patch", "search_files", "todo", "execute_code", "delegate_task", "clarify"]);
    expect(names(withToolsets(["file"], ["patch"]))).toEqual(["read_file", "write_file", "search_files"]);
    expect(names(withToolsets(["hermes-acp", "file"]))).toHaveLength(16);
  });

  it("reports unknown names and keeps going", () => {
    const resolved = resolveToolset(withToolsets(["file", "no-such-set"]));
    expect(resolved.unknown).toEqual(["no-such-set"]);
    expect(resolved.tools.map((tool) => tool.name)).toContain("read_file");
  });

  it("leaves out a tool whose program is missing, saying why", () => {
    const resolved = resolveToolset(withToolsets(undefined), { PATH: "/nonexistent", HERMES_HOME: "/nonexistent-hermes-home", CHROME_PATH: NO_BROWSER });
    expect(resolved.tools.map((tool) => tool.name)).not.toContain("terminal");
    expect(resolved.unavailable).toEqual([
      { tool: "web_search", reason: expect.stringMatching(/^needs a search backend: set FIRECRAWL_API_KEY/) },
      { tool: "terminal", reason: "needs bash on PATH" },
      { tool: "process", reason: "needs bash on PATH" },
      { tool: "vision_analyze", reason: expect.stringMatching(/^no model is configured/) },
      ...BROWSER_TOOLS.map((tool) => ({ tool, reason: `CHROME_PATH is set to ${NO_BROWSER}, which is not an executable file (set it to your Chromium or Chrome)` })),
      { tool: "execute_code", reason: "needs python3 on PATH" },
    ]);
  });

  it("offers the browser tools after the skills when a Chromium or Chrome is there, browser_vision only with a vision model", () => {
    const browser = { ...bare, CHROME_PATH: process.execPath };
    const all = names(withToolsets(undefined), browser);
    expect(all.slice(all.indexOf("skill_manage") + 1, all.indexOf("todo"))).toEqual(BROWSER_TOOLS.filter((tool) => tool !== "browser_vision"));
    const seeing = withToolsets(undefined);
    seeing.model = { ...seeing.model, default: "gpt-4o" };
    expect(names(seeing, browser)).toContain("browser_vision");
    expect(resolveToolset(withToolsets(["browser"]), { PATH: "/nonexistent", CHROME_PATH: NO_BROWSER }).unavailable[0]).toEqual({
      tool: "browser_navigate",
      reason: expect.stringContaining("CHROME_PATH is set to"),
    });
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
