import { VERSION } from "../../shared/version.js";
import type { SlashCommand } from "./types.js";

/** `/version`: the package version. */
export const versionCommand: SlashCommand = {
  name: "version",
  description: "Show Hermes version",
  run() {
    return { reply: `Hermes Agent v${VERSION}` };
  },
};
