import { parseArgs } from "node:util";
import type { AgentEvent } from "../runtime/session.js";
import { Runtime } from "../runtime/runtime.js";
import { errorMessage } from "../shared/errors.js";
import { bootstrap } from "./bootstrap.js";
import { nonInteractiveAsker } from "./terminal-asker.js";

/**
 * `hermes chat -q "prompt"`: one turn with the same runtime the editor gets. The answer streams
 * to stdout; reasoning and tool activity go to stderr. Ctrl-C cancels the turn.
 * Exit 0 when the turn ends normally, 1 on setup errors, 130 when cancelled.
 */
/** How long `hermes chat` waits at the end for a state.db another process keeps locked. */
const CHAT_SAVE_WAIT_MS = 60_000;

export async function runChatCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { query: { type: "string", short: "q" } }, strict: true });
  const query = values.query?.trim();
  if (!query) {
    process.stderr.write('usage: hermes chat -q "prompt"\n');
    return 2;
  }
  const paths = bootstrap({ logFile: true });
  const runtime = new Runtime({ home: paths.home });
  let session;
  try {
    session = await runtime.sessions.create(process.cwd(), { source: "cli" });
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n`);
    return 1;
  }
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const printer = new TerminalPrinter();
  const result = await session.prompt(query, {
    signal: controller.signal,
    asker: nonInteractiveAsker,
    ports: { notifyUser: (text) => process.stderr.write(`hermes: ${text}\n`) },
    emit: (event) => printer.print(event),
  });
  printer.end();
  if (result.storeDamage) process.stderr.write(`hermes: ${result.storeDamage}\n`);
  const waited = session.unsaved;
  if (waited) {
    // A one-shot command outlives no retry: wait (bounded) for the lock instead of leaving the turn unsaved.
    process.stderr.write(`hermes: waiting up to ${CHAT_SAVE_WAIT_MS / 1000} s to save the conversation (${result.saveError ?? "state.db is busy"})\n`);
    await session.saved(CHAT_SAVE_WAIT_MS);
  }
  if (session.unsaved || (result.saveError && !waited)) {
    process.stderr.write(`hermes: this conversation could not be saved: ${result.saveError ?? "state.db stayed locked"}\n`);
  }
  await session.dispose();
  if (result.stopReason === "cancelled") return 130;
  return 0;
}

class TerminalPrinter {
  private atLineStart = true;

  print(event: AgentEvent): void {
    switch (event.type) {
      case "message_delta":
        process.stdout.write(event.text);
        this.atLineStart = event.text.endsWith("\n");
        break;
      case "reasoning_delta":
        process.stderr.write(`\x1b[2m${event.text}\x1b[0m`);
        break;
      case "tool_start":
        this.newline();
        process.stderr.write(`▶ ${event.title}\n`);
        break;
      case "tool_end":
        process.stderr.write(`${event.isError ? "✗" : "✓"} ${event.name}${event.isError ? `: ${event.content.slice(0, 200)}` : ""}\n`);
        break;
      case "turn_end":
        if (event.stopReason !== "end_turn") process.stderr.write(`\n[${event.stopReason}]\n`);
        break;
      default:
        break;
    }
  }

  end(): void {
    this.newline();
  }

  private newline(): void {
    if (!this.atLineStart) process.stdout.write("\n");
    this.atLineStart = true;
  }
}
