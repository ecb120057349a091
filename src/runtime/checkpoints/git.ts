import { execFile } from "node:child_process";
import { devNull } from "node:os";

/** Longest one git call of the checkpoint store may take (Hermes' `HERMES_CHECKPOINT_TIMEOUT` default). */
export const GIT_TIMEOUT_MS = 30_000;

/** Output a git call may produce before it is stopped (blobs of restored files are at most the file cap). */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** A git call that did not exit 0: its exit code (or -1 when it never ran or was killed) and what it said. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ""} failed${code >= 0 ? ` (exit ${code})` : ""}: ${stderr.trim().split("\n")[0] || "no output"}`);
  }
}

export interface GitCall {
  /** The shadow store (`GIT_DIR`). */
  store: string;
  /** The workspace (`GIT_WORK_TREE`, and the directory git runs in); absent for calls that need none. */
  workTree?: string;
  /** A per-workspace index (`GIT_INDEX_FILE`). */
  index?: string;
  /** Written to git's stdin. */
  input?: string | Buffer;
  /** Extra variables (commit dates). */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (`diff-index --quiet` → 1). */
  allow?: readonly number[];
  signal?: AbortSignal;
}

/**
 * The environment of a store git call: the user's git configuration ignored (signing, hooks and
 * credential helpers must never run for a background snapshot), every inherited `GIT_*` variable
 * dropped, then the store, work tree and index set.
 */
function gitEnv(call: GitCall): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("GIT_")) env[key] = value;
  env.GIT_DIR = call.store;
  if (call.workTree) env.GIT_WORK_TREE = call.workTree;
  if (call.index) env.GIT_INDEX_FILE = call.index;
  env.GIT_CONFIG_GLOBAL = devNull;
  env.GIT_CONFIG_SYSTEM = devNull;
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  return { ...env, ...call.env };
}

/**
 * Runs `git args` against the store; resolves with stdout as bytes and the exit code. Rejects
 * with GitError for an exit code not in `allow`, a missing git (code -1, ENOENT in the message),
 * the timeout, or `signal` (the child is killed).
 */
export function gitRaw(args: readonly string[], call: GitCall): Promise<{ stdout: Buffer; code: number }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      [...args],
      {
        cwd: call.workTree ?? call.store,
        env: gitEnv(call),
        encoding: "buffer",
        maxBuffer: MAX_OUTPUT_BYTES,
        timeout: GIT_TIMEOUT_MS,
        windowsHide: true,
        ...(call.signal ? { signal: call.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ stdout, code: 0 });
        const code = typeof error.code === "number" ? error.code : -1;
        if (code >= 0 && !error.killed && call.allow?.includes(code)) return resolve({ stdout, code });
        const said = stderr.toString("utf8") || error.message;
        reject(new GitError(args, error.killed ? -1 : code, said));
      },
    );
    child.stdin?.on("error", () => undefined);
    if (call.input !== undefined) child.stdin?.end(call.input);
    else child.stdin?.end();
  });
}

/** `gitRaw` with stdout as trimmed text. */
export async function git(args: readonly string[], call: GitCall): Promise<string> {
  return (await gitRaw(args, call)).stdout.toString("utf8").trim();
}

/** NUL-separated git output (`-z`) as its entries, empty ones dropped. */
export function nulList(output: Buffer | string): string[] {
  return output.toString("utf8").split("\0").filter((entry) => entry !== "");
}
