import type { AnyTool } from "../types.js";
import { browserConsoleTool, browserGetImagesTool, browserSnapshotTool } from "./inspect.js";
import { browserClickTool, browserPressTool, browserScrollTool, browserTypeTool } from "./interact.js";
import { browserBackTool, browserNavigateTool } from "./navigate.js";
import { browserVisionTool } from "./vision.js";

/**
 * The `browser` toolset in Hermes' order. Loading this module loads no browser: the session's
 * browser modules (and playwright-core) are loaded by the first call.
 */
export const BROWSER_TOOLS: readonly AnyTool[] = [
  browserNavigateTool,
  browserSnapshotTool,
  browserClickTool,
  browserTypeTool,
  browserScrollTool,
  browserBackTool,
  browserPressTool,
  browserGetImagesTool,
  browserVisionTool,
  browserConsoleTool,
];

export { browserAvailability } from "./availability.js";
