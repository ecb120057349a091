import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { HermesConfig } from "../config/schema.js";
import { BROWSER_TOOLS, browserAvailability } from "./browser/tools.js";
import { clarifyTool } from "./clarify/clarify.js";
import { delegateTaskTool } from "./delegate/delegate-task.js";
import { executeCodeTool } from "./execute-code/execute-code.js";
import { memoryTool } from "./memory/memory.js";
import { patchTool } from "./patch/patch.js";
import { processTool } from "./process/process.js";
import { readFileTool } from "./read-file/read-file.js";
import { searchFilesTool } from "./search-files/search-files.js";
import { sessionSearchTool } from "./session-search/session-search.js";
import { skillManageTool } from "./skills/skill-manage.js";
import { skillViewTool } from "./skills/skill-view.js";
import { skillsListTool } from "./skills/skills-list.js";
import { terminalTool } from "./terminal/terminal.js";
import { todoTool } from "./todo/todo.js";
import { primeParameters } from "./registry.js";
import { TOOL_PARAMETERS } from "./tool-parameters.gen.js";
import type { AnyTool } from "./types.js";
import { visionUnavailableReason } from "./vision/capability.js";
import { visionAnalyzeTool } from "./vision/vision-analyze.js";
import { webSearchUnavailable } from "./web/backend-config.js";
import { webExtractTool } from "./web/web-extract.js";
import { webSearchTool } from "./web/web-search.js";
import { writeFileTool } from "./write-file/write-file.js";
import { chooseShell } from "./terminal/shell.js";

/**
 * Named toolsets with Hermes' names (`toolsets.py`): a toolset lists tools and may include other
 * toolsets; `hermes-acp` is the editor's default. Toolsets whose tools are not built yet are
 * declared empty so config.yaml can already name them.
 *
 * Adding a toolset: its tools' objects in TOOLS, an entry here, its place in `hermes-acp`, and an
 * availability check in AVAILABILITY when a tool needs something the machine may lack.
 */
export const TOOLSETS: Readonly<Record<string, { description: string; tools?: readonly string[]; includes?: readonly string[] }>> = {
  web: { description: "web_search, web_extract", tools: ["web_search", "web_extract"] },
  terminal: { description: "run commands and manage background processes", tools: ["terminal", "process"] },
  file: { description: "read, write, patch and search files", tools: ["read_file", "write_file", "patch", "search_files"] },
  vision: { description: "look at images", tools: ["vision_analyze"] },
  skills: { description: "the skill library", tools: ["skills_list", "skill_view", "skill_manage"] },
  browser: {
    description: "drive a browser (the system's Chromium or Chrome)",
    tools: ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_scroll", "browser_back", "browser_press", "browser_get_images", "browser_vision", "browser_console"],
  },
  todo: { description: "the task list", tools: ["todo"] },
  memory: { description: "MEMORY.md and USER.md", tools: ["memory"] },
  session_search: { description: "search past sessions", tools: ["session_search"] },
  code_execution: { description: "execute_code", tools: ["execute_code"] },
  delegation: { description: "delegate_task", tools: ["delegate_task"] },
  clarify: { description: "ask the user a question (editors that show forms)", tools: ["clarify"] },
  "hermes-acp": {
    description: "editor integration: coding tools without messaging or audio (clarify only where the editor shows forms)",
    includes: ["web", "terminal", "file", "vision", "skills", "browser", "todo", "memory", "session_search", "code_execution", "delegation", "clarify"],
  },
};

/** The toolset this agent enables when config.yaml names none (`platform_toolsets.acp`). */
export const DEFAULT_TOOLSET = "hermes-acp";
/** In `platform_toolsets.acp`: leave every MCP server out. */
export const NO_MCP = "no_mcp";
/** MCP servers are toolsets named `mcp-<server>`. */
export const MCP_TOOLSET_PREFIX = "mcp-";

const TOOLS: Readonly<Record<string, AnyTool>> = Object.fromEntries(
  [
    webSearchTool,
    webExtractTool,
    terminalTool,
    processTool,
    readFileTool,
    writeFileTool,
    patchTool,
    searchFilesTool,
    visionAnalyzeTool,
    skillsListTool,
    skillViewTool,
    skillManageTool,
    ...BROWSER_TOOLS,
    todoTool,
    memoryTool,
    sessionSearchTool,
    executeCodeTool,
    delegateTaskTool,
    clarifyTool,
  ].map((tool) => [tool.name, tool]),
);
// Their parameters' JSON schemas were derived at build time (tool-parameters.gen.ts).
for (const tool of Object.values(TOOLS)) {
  const parameters = TOOL_PARAMETERS[tool.name];
  if (parameters) primeParameters(tool, parameters);
}

/** The parts of config.yaml toolset resolution reads (`web` for the web backend, `model` / `auxiliary` for vision; absent = defaults). */
export type ToolsetConfig = Pick<HermesConfig, "platform_toolsets" | "agent"> & Partial<Pick<HermesConfig, "web" | "model" | "auxiliary" | "browser">>;

const NO_SHELL = process.platform === "win32" ? "needs bash (Git Bash, MSYS2 or WSL) or PowerShell" : "needs bash on PATH";

/** What a tool needs from the machine or config: undefined when usable, else why not (shown by `/tools`). */
const AVAILABILITY: Readonly<Record<string, (env: NodeJS.ProcessEnv, config: ToolsetConfig) => string | undefined>> = {
  web_search: (env, config) => webSearchUnavailable(config, env),
  vision_analyze: (_env, config) => visionUnavailableReason(config),
  terminal: (env) => (chooseShell(env) ? undefined : NO_SHELL),
  process: (env) => (chooseShell(env) ? undefined : NO_SHELL),
  execute_code: (env) => (onPath("python3", env) ? undefined : "needs python3 on PATH"),
  ...Object.fromEntries(BROWSER_TOOLS.map((tool) => [tool.name, (env: NodeJS.ProcessEnv, config: ToolsetConfig) => browserAvailability(env, config)])),
  browser_vision: (env, config) => browserAvailability(env, config) ?? visionUnavailableReason(config),
};

/** The tools a session gets, and what was left out and why. */
export interface ResolvedToolset {
  /** In the order the model sees them. */
  tools: AnyTool[];
  /** Tools of the enabled toolsets that are not offered, with the reason. */
  unavailable: Array<{ tool: string; reason: string }>;
  /** Names in config.yaml that are no toolset. */
  unknown: string[];
  /** Whether MCP servers may join (`no_mcp` absent), and which are disabled by name. */
  mcp: { enabled: boolean; disabled: ReadonlySet<string> };
}

/**
 * Resolves the session's tools from config.yaml: `platform_toolsets.acp` (default `hermes-acp`),
 * expanded recursively, minus `agent.disabled_toolsets`, each tool kept only when its
 * availability check passes. Never throws; unknown names are reported in `unknown`.
 */
export function resolveToolset(config: ToolsetConfig, env: NodeJS.ProcessEnv = process.env): ResolvedToolset {
  const enabledNames = config.platform_toolsets.acp ?? [DEFAULT_TOOLSET];
  const disabledNames = config.agent.disabled_toolsets;
  const unknown: string[] = [];
  const expand = (names: readonly string[]): string[] => {
    const tools: string[] = [];
    const seen = new Set<string>();
    const visit = (name: string): void => {
      if (seen.has(name)) return;
      seen.add(name);
      if (name === NO_MCP || name.startsWith(MCP_TOOLSET_PREFIX)) return;
      const toolset = TOOLSETS[name];
      if (!toolset) {
        if (TOOLS[name]) tools.push(name);
        else if (!unknown.includes(name)) unknown.push(name);
        return;
      }
      for (const tool of toolset.tools ?? []) tools.push(tool);
      for (const included of toolset.includes ?? []) visit(included);
    };
    for (const name of names) visit(name);
    return tools;
  };
  const disabled = new Set(expand(disabledNames));
  const tools: AnyTool[] = [];
  const unavailable: ResolvedToolset["unavailable"] = [];
  for (const name of new Set(expand(enabledNames))) {
    if (disabled.has(name)) continue;
    const reason = AVAILABILITY[name]?.(env, config);
    if (reason) unavailable.push({ tool: name, reason });
    else tools.push(TOOLS[name]!);
  }
  const disabledMcp = new Set(disabledNames.filter((name) => name.startsWith(MCP_TOOLSET_PREFIX)).map((name) => name.slice(MCP_TOOLSET_PREFIX.length)));
  return { tools, unavailable, unknown, mcp: { enabled: !enabledNames.includes(NO_MCP) && !disabledNames.includes(NO_MCP), disabled: disabledMcp } };
}

/** The `hermes-acp` tools with nothing disabled and every check skipped (for tests and tool listings). */
export function hermesAcpTools(): AnyTool[] {
  return Object.values(TOOLS);
}

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}
