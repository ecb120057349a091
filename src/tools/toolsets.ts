import { patchTool } from "./patch/patch.js";
import { processTool } from "./process/process.js";
import { readFileTool } from "./read-file/read-file.js";
import { searchFilesTool } from "./search-files/search-files.js";
import { sessionSearchTool } from "./session-search/session-search.js";
import { terminalTool } from "./terminal/terminal.js";
import { todoTool } from "./todo/todo.js";
import { writeFileTool } from "./write-file/write-file.js";
import type { AnyTool } from "./types.js";

/**
 * The tools of the `hermes-acp` toolset, in the order the model sees them (Hermes' order: terminal,
 * then read_file / write_file / patch / search_files, then todo, session_search and the rest).
 * Returns a new array on each call; the tool objects themselves are shared and stateless.
 */
export function hermesAcpTools(): AnyTool[] {
  return [terminalTool, processTool, readFileTool, writeFileTool, patchTool, searchFilesTool, todoTool, sessionSearchTool];
}
