import { spawn, type ChildProcess } from "node:child_process";
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from "@agentclientprotocol/sdk/unstable";

interface Terminal {
  child: ChildProcess;
  output: string;
  limit: number | undefined;
  truncated: boolean;
  status: TerminalExitStatus | undefined;
  exited: Promise<TerminalExitStatus>;
}

/**
 * The terminals of a test editor: `terminal/create` really runs the command here (stdout and
 * stderr merged, in its cwd, with the editor's environment plus `env`), and `output`,
 * `wait_for_exit`, `kill` and `release` behave as ACP says. Every call is recorded in `calls`,
 * in order, as `<method> <terminalId>`; `created` keeps each create request.
 */
export class ClientTerminalHost {
  readonly created: CreateTerminalRequest[] = [];
  readonly calls: string[] = [];
  private readonly terminals = new Map<string, Terminal>();
  private next = 0;

  create(params: CreateTerminalRequest): CreateTerminalResponse {
    const terminalId = `editor-term-${++this.next}`;
    this.created.push(params);
    this.calls.push(`create ${terminalId}`);
    const env = { ...process.env, ...Object.fromEntries((params.env ?? []).map((variable) => [variable.name, variable.value])) };
    // Its own process group, so kill stops everything the command started, as an editor's pty does.
    const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const terminal: Terminal = {
      child,
      output: "",
      limit: params.outputByteLimit ?? undefined,
      truncated: false,
      status: undefined,
      exited: new Promise((resolve) => {
        child.once("close", (code, signal) => {
          terminal.status = { exitCode: code, signal };
          resolve(terminal.status);
        });
        child.once("error", () => {
          terminal.status = { exitCode: 127, signal: null };
          resolve(terminal.status);
        });
      }),
    };
    const append = (chunk: Buffer): void => {
      terminal.output += chunk.toString("utf8");
      if (terminal.limit !== undefined && Buffer.byteLength(terminal.output) > terminal.limit) {
        terminal.output = terminal.output.slice(terminal.output.length - terminal.limit);
        terminal.truncated = true;
      }
    };
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  output(terminalId: string): TerminalOutputResponse {
    this.calls.push(`output ${terminalId}`);
    const terminal = this.get(terminalId);
    return { output: terminal.output, truncated: terminal.truncated, exitStatus: terminal.status ?? null };
  }

  async waitForExit(terminalId: string): Promise<WaitForTerminalExitResponse> {
    this.calls.push(`wait_for_exit ${terminalId}`);
    return this.get(terminalId).exited;
  }

  kill(terminalId: string): Record<string, never> {
    this.calls.push(`kill ${terminalId}`);
    killGroup(this.get(terminalId).child);
    return {};
  }

  release(terminalId: string): Record<string, never> {
    this.calls.push(`release ${terminalId}`);
    const terminal = this.get(terminalId);
    if (!terminal.status) killGroup(terminal.child);
    this.terminals.delete(terminalId);
    return {};
  }

  /** Kills whatever is still running (test cleanup). */
  dispose(): void {
    for (const terminal of this.terminals.values()) if (!terminal.status) killGroup(terminal.child);
    this.terminals.clear();
  }

  private get(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new Error(`unknown terminal ${terminalId}`);
    return terminal;
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}
