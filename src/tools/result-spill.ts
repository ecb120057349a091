import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { agentTempRoot } from "./exec/agent-temp.js";
import type { DisposableState, ToolSessionState } from "./session-state.js";

/**
 * The session's folder for tool results too large to send to the model whole: one folder per
 * session under the agent's private temp root (`<tmp>/hermes-<uid>/results-XXXXXX`, mode 0700,
 * files 0600), made on the first spill and removed with everything in it when the session's tool
 * state is disposed. Sandboxed commands see it read-only (the root is mounted read-only), so the
 * model can read a spilled result with read_file, search_files or the terminal, and change none.
 */
class ResultSpillFolder implements DisposableState {
  private dir: string | undefined;
  private count = 0;

  /**
   * Writes `content` (already redacted: see `redactResult`) to a new file named after the call and
   * the tool; resolves with its absolute path. Rejects when the file cannot be written.
   */
  async write(callId: string, toolName: string, content: string): Promise<string> {
    this.dir ??= mkdtempSync(path.join(agentTempRoot(), "results-"));
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    this.count += 1;
    const file = path.join(this.dir, `${String(this.count).padStart(3, "0")}-${safeName(toolName)}-${safeName(callId)}.txt`);
    await writeFile(file, content, { encoding: "utf8", mode: 0o600, flag: "wx" });
    return file;
  }

  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

const SPILL_FOLDER = Symbol("result-spill-folder");

/** Writes one tool result to the session's spill folder (see `ResultSpillFolder`); resolves with the path. */
export function spillToolResult(state: ToolSessionState, callId: string, toolName: string, content: string): Promise<string> {
  return state.get(SPILL_FOLDER, () => new ResultSpillFolder()).write(callId, toolName, content);
}

/** File-name-safe: letters, digits, `_`, `-`, `.`; at most 60 characters. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60) || "x";
}
