import { constants } from "node:os";
import { parseArgs } from "node:util";
import { answerInitializeEarly } from "../acp/early-initialize.js";
import { initializeResponse } from "../acp/initialize.js";
import { RuntimeLoader } from "../runtime/lazy-runtime.js";
import { killAllProcesses } from "../tools/process/live-groups.js";
import { log } from "../shared/logger.js";
import { VERSION } from "../shared/version.js";
import type { SetupLaunch } from "../acp/auth.js";
import { bootstrap } from "./bootstrap.js";

/**
 * `hermes acp` / `hermes-acp`. First matching flag wins: --version, --check, --setup; without
 * flags it serves ACP on stdio. `setupLaunch` is how this process's `--setup` is started again
 * (told to clients that opt into terminal auth).
 */
export async function runAcpCommand(argv: string[], options: { setupLaunch?: SetupLaunch } = {}): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      version: { type: "boolean" },
      check: { type: "boolean" },
      setup: { type: "boolean" },
    },
    strict: true,
  });
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.check) {
    const { runCheck } = await import("./check-command.js");
    return runCheck();
  }
  if (values.setup) {
    const { runSetup } = await import("./setup-command.js");
    return runSetup();
  }

  const paths = bootstrap({ logFile: true });
  // Background processes die with the server, however it exits.
  process.once("exit", killAllProcesses);
  // Built after `initialize` has answered (which needs only config.yaml), then warmed up.
  const runtime = new RuntimeLoader({ home: paths.home });
  const shutdown = installShutdownHandlers();
  // The first `initialize` is answered before the SDK and the server's modules load.
  const early = await answerInitializeEarly(process.stdin, process.stdout, (params) =>
    initializeResponse({ configuredProvider: runtime.configuredProvider(), clientCapabilities: params.clientCapabilities ?? {}, setupLaunch: options.setupLaunch }),
    shutdown.signal,
  );
  if (early.answered !== undefined) log.debug("initialize answered before the server loaded");
  const { serveAcp } = await import("../acp/server.js");
  let code: number;
  try {
    const end = await serveAcp(runtime, early.input, process.stdout, { signal: shutdown.signal, setupLaunch: options.setupLaunch, early });
    code = end === "stopped" ? shutdown.exitCode() : 0;
  } catch (error) {
    log.error("ACP agent crashed", error);
    code = 1;
  }
  killAllProcesses();
  await log.close();
  // Nothing should outlive serving; if a stray handle would keep the loop alive, exit anyway.
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  return code;
}

/** Signals that stop the server the way closing stdin does. */
const SHUTDOWN_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
/** How long a shutdown may take (closing sessions, flushing logs) before the process exits regardless. */
const EXIT_GRACE_MS = 3000;

/**
 * Exit codes follow convention: 0 after the client closed stdin, 128 + the signal's number after
 * SIGTERM, SIGINT or SIGHUP, 1 after a crash. A signal aborts `signal`, which makes the server
 * close every session (and so every tool process group) and return; a second signal, or a
 * shutdown that outlasts EXIT_GRACE_MS, exits at once. An uncaught exception or unhandled
 * rejection is logged and exits 1. The `exit` hook installed by the caller kills any process
 * group still alive in every case.
 */
function installShutdownHandlers(): { signal: AbortSignal; exitCode: () => number } {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const exitCode = (): number => (received ? 128 + (constants.signals[received] ?? 0) : 0);
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      process.exit(exitCode());
      return;
    }
    received = signal;
    log.info(`received ${signal}, shutting down`);
    controller.abort();
    setTimeout(() => {
      log.warn(`shutdown after ${signal} took over ${EXIT_GRACE_MS} ms; exiting`);
      void log.close().finally(() => process.exit(exitCode()));
    }, EXIT_GRACE_MS).unref();
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
  let crashed = false;
  const crash = (error: unknown): void => {
    // A failure while reporting the first crash (its log write, closing the log) exits at once.
    if (crashed) process.exit(1);
    crashed = true;
    log.error("ACP agent crashed", error);
    killAllProcesses();
    void log.close().finally(() => process.exit(1));
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  return { signal: controller.signal, exitCode };
}
