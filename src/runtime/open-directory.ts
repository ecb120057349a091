import { existsSync } from "node:fs";
import { StateStore } from "../store/state-store.js";
import { SessionDirectory } from "./session-directory.js";

/**
 * The stored sessions of the state.db at `path`, for short-lived commands (`hermes sessions …`):
 * opened on first use, never created (without a state.db there are simply no sessions), no
 * background integrity check.
 */
export function openSessionDirectory(path: string): SessionDirectory {
  return new SessionDirectory(existsSync(path) ? new StateStore(path) : undefined, path);
}
