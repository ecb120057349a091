import { basename } from "node:path";
import { VERSION } from "../shared/version.js";

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

/**
 * Entry of both bins. `hermes-acp` (and `hermes acp`) serve ACP; `hermes chat` runs one prompt.
 * Modules are imported per command so start-up loads only what the command needs.
 */
export async function main(argv: string[], binName: string): Promise<number> {
  const args = [...argv];
  const command = binName.startsWith("hermes-acp") ? "acp" : args.shift();
  switch (command) {
    case "acp": {
      const { runAcpCommand } = await import("./acp-command.js");
      return runAcpCommand(args);
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

const entry = process.argv[1] ? basename(process.argv[1]) : "hermes";
main(process.argv.slice(2), entry).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`hermes: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
