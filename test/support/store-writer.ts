/**
 * A child process for the store's concurrency tests (src/store/concurrency.test.ts):
 *
 *   node --import tsx test/support/store-writer.ts <state.db> <sessionId> <rounds|forever> [sharedSessionId]
 *
 * Opens the store, prints `ready`, waits for a line on stdin, then runs rounds. Each round appends
 * three messages (user, assistant tool call, tool result) to its own session in one transaction,
 * plus one message to the shared session when given, and then prints `committed <round>`: a line
 * is printed only after its writes are committed. With a shared session, rounds continue past the
 * given number until the other writer's messages appear there (proof that both wrote at once).
 * Prints `done` after the last round.
 */
import { createInterface } from "node:readline";
import { StateStore } from "../../src/store/state-store.js";

const [path, sessionId, roundsArg, sharedId] = process.argv.slice(2);
if (!path || !sessionId || !roundsArg) {
  process.stderr.write("usage: store-writer.ts <state.db> <sessionId> <rounds|forever> [sharedSessionId]\n");
  process.exit(2);
}
const rounds = roundsArg === "forever" ? Number.POSITIVE_INFINITY : Number(roundsArg);

const store = new StateStore(path);
const own = store.createSession({ id: sessionId, cwd: process.cwd(), model: "writer-model", provider: "custom" });
const shared = sharedId ? store.createSession({ id: sharedId, cwd: process.cwd(), model: "writer-model", provider: "custom" }) : undefined;
store.getSession(sessionId); // opens the database before saying ready
process.stdout.write("ready\n");

const lines = createInterface({ input: process.stdin });
lines.once("line", () => {
  lines.close();
  process.stdin.destroy();
  // with a shared session, keep going past `rounds` until the other writer's messages show up
  // there, so the two processes are known to have written at the same time
  const otherWrote = (round: number): boolean => !shared || (store.getSession(shared.id)?.messageCount ?? 0) > round - 1;
  for (let round = 1; round <= rounds || !otherWrote(round); round += 1) {
    const callId = `call-${sessionId}-${round}`;
    store.appendMessages(own, [
      { role: "user", content: `${sessionId} asks question number ${round} about quokka` },
      { role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: "terminal", arguments: `{"command":"echo ${round}"}` } }] },
      { role: "tool", tool_call_id: callId, name: "terminal", content: `output ${round} `.repeat(20) },
    ]);
    if (shared) store.appendMessage(shared, { role: "user", content: `${sessionId} writes shared line ${round}` });
    process.stdout.write(`committed ${round}\n`);
  }
  store.close();
  process.stdout.write("done\n");
});
