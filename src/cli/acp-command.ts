import { constants } from "node:os";
import { parseArgs } from "node:util";
import type { Readable } from "node:stream";
import { answerInitializeEarly, type EarlyStart } from "../acp/early-initialize.js";
import { initializeResponse } from "../acp/initialize.js";
import { RuntimeLoader } from "../runtime/lazy-runtime.js";
import { killAllProcesses } from "../tools/process/live-groups.js";
import { log } from "../shared/logger.js";
import { VERSION } from "../shared/version.js";
import type { SetupLaunch } from "../acp/auth.js";
import { bootstrap } from "./bootstrap.js";
import type { LaunchContext } from "./launch-context.js";

/**
 * `hermes acp` / `hermes-acp`. First matching flag wins: --version, --check, --setup; without
 * flags it serves ACP on stdio. `setupLaunch` is how this process's `--setup` is started again
 * (told to clients that opt into terminal auth).
 */
export async function runAcpCommand(argv: string[], options: { setupLaunch?: SetupLaunch; launch?: LaunchContext } = {}): Promise<number> {
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
  // A signal the launcher held while it answered from its cache is handled now, as if just received.
  const held = options.launch?.signals?.release();
  if (held) process.emit(held, held);
  const early = await firstInitialize(runtime, paths.home, shutdown.signal, options);
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

/**
 * The first `initialize`, answered before the SDK and the server's modules load: by the launcher
 * from its cache, else here (early-initialize.ts), and then recorded in the launcher's cache for
 * the next start (made from the files of `home`). Resolves with what the server reads and skips.
 */
async function firstInitialize(runtime: RuntimeLoader, home: string, signal: AbortSignal, options: { setupLaunch?: SetupLaunch; launch?: LaunchContext }): Promise<EarlyStart> {
  const { early, initializeCache } = options.launch ?? {};
  const input = early?.input ?? process.stdin;
  if (early?.answered !== undefined) {
    log.debug("initialize answered by the launcher from its cache");
    // Read when the server starts, not now: the write of the cached answer may fail later.
    return {
      input,
      answered: early.answered,
      get outputError() {
        return early.outputError;
      },
    };
  }
  let envNames: readonly string[] | undefined;
  const start = await answerInitializeEarly(input as Readable, process.stdout, (params) => {
    const detected = runtime.detectProviderReading();
    envNames = detected.envNames;
    return initializeResponse({ configuredProvider: detected.provider, clientCapabilities: params.clientCapabilities ?? {}, setupLaunch: options.setupLaunch });
  }, signal);
  const { exchange } = start;
  if (exchange) {
    log.debug("initialize answered before the server loaded");
    // A provider found by listing the whole environment cannot be keyed on a few variables.
    const names = envNames;
    if (names && initializeCache && !start.outputError) {
      setImmediate(() => {
        if (!initializeCache.store({ home, line: exchange.line, frame: exchange.frame, envNames: names })) {
          log.debug("the initialize answer was not cached (config.yaml or .env changed since start, or $HERMES_HOME/cache cannot be written)");
        }
      });
    }
  }
  return start;
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
