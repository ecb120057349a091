import { z } from "zod";
import { VERSION } from "../shared/version.js";
import type { LaunchContext } from "./launch-context.js";

// zod compiles a parser with `new Function` the first time an object schema parses; that pays off
// over many parses of one schema, not here, where each schema parses a few times per process
// (config.yaml, incoming frames, tool arguments) and the compile cost lands on start-up and first
// use (~25 ms before `initialize` is answered). Parsing results are the same either way.
z.config({ jitless: true });

const USAGE = `Hermes Agent ${VERSION}

Usage:
  hermes acp [--version | --check | --setup]   run the ACP server on stdio (what editors launch)
  hermes-acp [--version | --check | --setup]   same as \`hermes acp\`
  hermes chat -q "prompt"                      run one prompt in the terminal
  hermes sessions list [--cwd DIR] [--json]    stored sessions, most recent first
  hermes sessions search "query" [--json]      search past sessions
  hermes sessions export ID [--json]           a session as Markdown (or JSON)
  hermes sessions delete ID                    delete a stored session
  hermes sessions repair [--salvage]           check state.db, rebuild its search index
  hermes --version

Files live in $HERMES_HOME (default ~/.hermes): config.yaml, .env, state.db, logs/.
`;

/** The two bins; each has its own entry file (dist/hermes.js, dist/hermes-acp.js), so no mode depends on a file name. */
export type BinName = "hermes" | "hermes-acp";

/**
 * Runs one command line of `bin`. `hermes-acp` always serves ACP (its only arguments are
 * `--version`, `--check`, `--setup`; a leading `acp` is accepted); `hermes acp` does the same,
 * `hermes chat` runs one prompt. Modules are imported per command so start-up loads only what the
 * command needs. `launcher` is the script the process runs (process.argv[1]): how `--setup` is
 * started again in a terminal.
 */
export async function main(argv: string[], bin: BinName, launcher?: string, launch: LaunchContext = {}): Promise<number> {
  const args = [...argv];
  if (bin === "hermes-acp" && args[0] === "acp") args.shift();
  if (bin === "hermes-acp" && (args[0] === "--help" || args[0] === "-h")) {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = bin === "hermes-acp" ? "acp" : args.shift();
  switch (command) {
    case "acp": {
      const { runAcpCommand } = await import("./acp-command.js");
      const setupArgs = bin === "hermes-acp" ? ["--setup"] : ["acp", "--setup"];
      return runAcpCommand(args, { ...(launcher ? { setupLaunch: { command: process.execPath, args: [launcher, ...setupArgs] } } : {}), launch });
    }
    case "chat": {
      const { runChatCommand } = await import("./chat-command.js");
      return runChatCommand(args);
    }
    case "sessions": {
      const { runSessionsCommand } = await import("./sessions-command.js");
      return runSessionsCommand(args);
    }
    case "--version":
    case "-V":
    case "version":
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case undefined:
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`hermes: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

/**
 * What a bin's entry file calls (through dist/launcher.js, which runs the bundle): `main` over
 * this process's arguments, its result as the exit code; an error is one line on stderr and exit 1.
 * `launch` is what the launcher did before (see LaunchContext).
 */
export function start(bin: BinName, launch: LaunchContext = {}): void {
  main(process.argv.slice(2), bin, process.argv[1], launch).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${bin}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
