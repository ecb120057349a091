import { constants } from "node:os";
import type { CreateTerminalRequest, TerminalHandle, WaitForTerminalExitResponse } from "@agentclientprotocol/sdk/unstable";
import { log } from "../shared/logger.js";
import type { ClientTerminalOutcome, ClientTerminalRequest, ToolPorts } from "../tools/ports.js";

type Stop = "timeout" | "cancel";

/** What the port uses of a terminal handle (the SDK's `TerminalHandle`). */
export type TerminalLike = Pick<TerminalHandle, "id" | "currentOutput" | "waitForExit" | "kill" | "release">;

/** What the port uses of the connection (the SDK's `AgentContext`). */
export interface TerminalClient {
  createTerminal(params: CreateTerminalRequest): Promise<TerminalLike>;
}

/**
 * `ToolPorts.runInClientTerminal` over ACP terminals, for a client that advertised `terminal`.
 * `terminal/create` (never cancelled mid-flight, so a terminal the editor made is never leaked)
 * → `onStarted(id)` (the tool embeds `{type: "terminal", terminalId}` in its tool call) →
 * `terminal/wait_for_exit`, raced against `signal` (the turn's cancellation: `session/cancel`,
 * `$/cancel_request` of the prompt, `session/close`) and the timeout, either of which sends
 * `terminal/kill` → `terminal/output` → `terminal/release`, always, even after a failure.
 * Rejects only when `terminal/create` or `terminal/wait_for_exit` fails.
 */
export function clientTerminalPort(client: TerminalClient, sessionId: string): NonNullable<ToolPorts["runInClientTerminal"]> {
  return async (request, signal) => {
    const handle = await client.createTerminal({
      sessionId,
      command: request.command,
      args: request.args,
      cwd: request.cwd,
      env: Object.entries(request.env ?? {}).map(([name, value]) => ({ name, value })),
      ...(request.outputByteLimit !== undefined ? { outputByteLimit: request.outputByteLimit } : {}),
    });
    try {
      return await follow(handle, request, signal);
    } finally {
      await handle.release().catch((error: unknown) => log.warn(`terminal/release of ${handle.id} failed`, error));
    }
  };
}

async function follow(handle: TerminalLike, request: ClientTerminalRequest, signal: AbortSignal): Promise<ClientTerminalOutcome> {
  request.onStarted?.(handle.id);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Stop>((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.min(request.timeoutMs, 2_147_483_647));
    onAbort = () => resolve("cancel");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const exited = handle.waitForExit();
  // After a kill the pending wait may still settle (or fail); nobody listens any more.
  exited.catch(() => undefined);
  try {
    const first = await Promise.race([exited.then((status) => ({ status })), stopped.then((stop) => ({ stop }))]);
    let status: WaitForTerminalExitResponse | undefined;
    let stop: Stop | undefined;
    if ("stop" in first) {
      stop = first.stop;
      await handle.kill().catch((error: unknown) => log.warn(`terminal/kill of ${handle.id} failed`, error));
    } else {
      status = first.status;
    }
    const output = await handle.currentOutput().catch((error: unknown) => {
      log.warn(`terminal/output of ${handle.id} failed`, error);
      return undefined;
    });
    status ??= output?.exitStatus ?? undefined;
    return {
      terminalId: handle.id,
      output: output?.output ?? "",
      truncated: output?.truncated ?? false,
      exitCode: exitCodeOf(status),
      ...(status?.signal ? { signal: status.signal } : {}),
      timedOut: stop === "timeout",
      interrupted: stop === "cancel",
    };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** The exit code, 128 + the signal's number for a signal, -1 when unknown. */
export function exitCodeOf(status: { exitCode?: number | null; signal?: string | null } | undefined): number {
  if (typeof status?.exitCode === "number") return status.exitCode;
  const signal = status?.signal as NodeJS.Signals | undefined;
  const number = signal ? constants.signals[signal] : undefined;
  return number !== undefined ? 128 + number : -1;
}
