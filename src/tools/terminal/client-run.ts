import { errorMessage } from "../../shared/errors.js";
import { stripAnsi, truncateMiddle } from "../process/output.js";
import type { ClientTerminalRequest, ToolPorts } from "../ports.js";
import { providerCredentialNames } from "./child-env.js";
import type { ForegroundOutcome } from "./run.js";

/** Bytes the editor is asked to keep: several times the model's cap, so the head + tail cut is ours. */
const EDITOR_OUTPUT_FACTOR = 4;

export interface ClientRunSpec {
  /** The program and argv, as the local runner would get them (bash with the wrapper, or its sandboxed invocation). */
  file: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  outputCap: number;
  onStarted?: (terminalId: string) => void;
}

/** A foreground outcome from the editor's terminal, with the terminal that ran it. */
export interface ClientRunOutcome extends ForegroundOutcome {
  terminalId?: string;
}

/**
 * Runs the terminal tool's command in the editor's terminal through `port`. The command is
 * `env -u <provider credentials…> <file> <args…>` (bash with the wrapper, inside bwrap when the
 * session is sandboxed: the editor's terminal gets the same confinement), so the editor's environment reaches the
 * command without the model-provider keys, exactly as the local runner strips them, and the
 * wrapper's cwd/env files make `cd` and `export` persist (the editor runs on this machine).
 * Output is ANSI-stripped and cut to `outputCap` (first 40 % + last 60 %). A port failure
 * becomes `spawnError`. Never rejects.
 */
export async function runInClientTerminal(port: NonNullable<ToolPorts["runInClientTerminal"]>, spec: ClientRunSpec): Promise<ClientRunOutcome> {
  const unset = providerCredentialNames().flatMap((name) => ["-u", name]);
  const request: ClientTerminalRequest = {
    command: "env",
    args: [...unset, spec.file, ...spec.args],
    cwd: spec.cwd,
    outputByteLimit: spec.outputCap * EDITOR_OUTPUT_FACTOR,
    timeoutMs: spec.timeoutMs,
    ...(spec.onStarted ? { onStarted: spec.onStarted } : {}),
  };
  try {
    const outcome = await port(request, spec.signal);
    const cleaned = stripAnsi(outcome.output);
    const output = outcome.truncated ? `[earlier output dropped by the editor's terminal]\n${cleaned}` : cleaned;
    return {
      output: truncateMiddle(output, spec.outputCap),
      exitCode: outcome.exitCode,
      timedOut: outcome.timedOut,
      interrupted: outcome.interrupted,
      pgid: undefined,
      strayProcessesStopped: false,
      terminalId: outcome.terminalId,
    };
  } catch (error) {
    return {
      output: "",
      exitCode: -1,
      timedOut: false,
      interrupted: spec.signal.aborted,
      pgid: undefined,
      spawnError: `the editor's terminal failed: ${errorMessage(error)}`,
      strayProcessesStopped: false,
    };
  }
}
