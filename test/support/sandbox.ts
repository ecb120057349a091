import { sandboxAvailability } from "../../src/tools/exec/sandbox/availability.js";

/**
 * Whether the sandbox suites can run: true where bubblewrap works. In CI a missing sandbox is a
 * failure (CI installs `bubblewrap`); elsewhere the suites are skipped with a message.
 */
export async function sandboxUsable(): Promise<boolean> {
  const available = await sandboxAvailability();
  if (available.kind === "bwrap") return true;
  const reason = available.kind === "none" ? available.reason : `${available.kind} cannot run in these tests`;
  if (process.env.CI) throw new Error(`the sandbox tests need bubblewrap in CI: ${reason}`);
  process.stderr.write(`skipping sandbox tests: ${reason}\n`);
  return false;
}
