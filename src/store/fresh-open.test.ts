import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { StateStore } from "./state-store.js";

/** Two agents opening one fresh home at the same moment: the WAL switch must not lose a first message. */
const OPENER = resolve(import.meta.dirname, "../../test/support/fresh-opener.ts");
const ROUNDS = 50;
const root = mkdtempSync(join(tmpdir(), "hermes-fresh-open-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

function opener(name: string): { send(path: string): Promise<string> } {
  const child = spawn(process.execPath, ["--import", "tsx", OPENER, name], { stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => waiting.shift()?.(line));
  return {
    send(path) {
      return new Promise((done) => {
        waiting.push(done);
        child.stdin!.write(`${path}\n`);
      });
    },
  };
}

describe("opening a fresh state.db from two processes at once", () => {
  it(`keeps both first messages in each of ${ROUNDS} rounds`, async () => {
    const a = opener("a");
    const b = opener("b");
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const path = join(root, `home-${round}`, "state.db");
      const answers = await Promise.all([a.send(path), b.send(path)]);
      failures.push(...answers.filter((line) => !line.startsWith("ok ")));
      const store = new StateStore(path);
      const stored = ["a", "b"].map((name) => store.getSession(`${name}-session`)?.messageCount ?? 0);
      store.close();
      if (stored.some((count) => count !== 1)) failures.push(`round ${round}: messages stored ${stored.join(", ")}`);
    }
    expect(failures).toEqual([]);
  });
});
