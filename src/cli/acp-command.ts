import { parseArgs } from "node:util";
import { Runtime } from "../runtime/runtime.js";
import { killAllProcesses } from "../tools/process/process-group.js";
import { log } from "../shared/logger.js";
import { VERSION } from "../shared/version.js";
import { bootstrap } from "./bootstrap.js";

/** `hermes acp` / `hermes-acp`. First matching flag wins: --version, --check, --setup. */
export async function runAcpCommand(argv: string[]): Promise<number> {
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
  const runtime = new Runtime({ home: paths.home });
  const { serveAcp } = await import("../acp/server.js");
  const stop = (signal: string): void => {
    log.info(`received ${signal}, exiting`);
    void log.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  try {
    await serveAcp(runtime, process.stdin, process.stdout);
  } catch (error) {
    log.error("ACP agent crashed", error);
    await log.close();
    return 1;
  }
  await log.close();
  return 0;
}
