/**
 * A child process for the fresh-open race test (src/store/fresh-open.test.ts):
 *
 *   node --import tsx test/support/fresh-opener.ts <name>
 *
 * For each line `<path>` on stdin: opens the state database at `<path>` (usually not there yet,
 * and being created by another process at the same moment), stores one session with one user
 * message, closes it, and prints `ok <path>`, or `error <path> <message>` when anything failed.
 */
import { createInterface } from "node:readline";
import { StateStore } from "../../src/store/state-store.js";

const name = process.argv[2] ?? "opener";
createInterface({ input: process.stdin }).on("line", (path) => {
  try {
    const store = new StateStore(path);
    const session = store.createSession({ id: `${name}-session`, cwd: process.cwd(), model: "m", provider: "custom" });
    store.appendMessage(session, { role: "user", content: `first message from ${name}` });
    store.close();
    process.stdout.write(`ok ${path}\n`);
  } catch (error) {
    process.stdout.write(`error ${path} ${error instanceof Error ? error.message.replace(/\n/g, " ") : String(error)}\n`);
  }
});
