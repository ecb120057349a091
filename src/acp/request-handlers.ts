/**
 * Every ACP request handler but `initialize`'s, gathered for agent-app.ts, which imports this module
 * on the first request that needs one (or when the warm-up after `initialize` does): their modules
 * (sessions, prompts, commands, rendering, tools) are not evaluated before `initialize` answers.
 */
export { switchSessionModel, handleSetConfigOption, handleSetMode, handleSetModel } from "./config-handlers.js";
export { handleLogout } from "./logout.js";
export { parseMcpServers } from "./mcp-params.js";
export { handlePrompt } from "./prompt-handler.js";
export { handleClose, handleDelete, handleFork, handleList, handleLoad, handleResume, opened } from "./session-handlers.js";
