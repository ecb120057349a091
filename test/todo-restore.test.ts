import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../src/runtime/runtime.js";
import type { AgentSession } from "../src/runtime/session.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/** A loaded, resumed or forked session gets its todo list back (as Hermes restores it from history). */
let llm: FakeLlm;
let home: TempHome;
const runtimes: Runtime[] = [];
const sessions: AgentSession[] = [];
beforeEach(async () => {
  llm = await startFakeLlm();
  home = createTempHome({ baseUrl: llm.baseUrl });
});
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  for (const runtime of runtimes.splice(0)) runtime.directory.close();
  await llm.close();
  home.cleanup();
});

const runtime = (): Runtime => {
  const created = new Runtime({ home: home.home, env: home.env() });
  runtimes.push(created);
  return created;
};
const ask = (session: AgentSession, text: string) =>
  session.prompt(text, { emit: () => {}, signal: new AbortController().signal, asker: { ask: async () => ({ outcome: "deny" }) } as never });

/** What the todo tool answers when the model reads the list (no arguments) in `session`. */
async function readTodos(session: AgentSession): Promise<unknown> {
  llm.push({ tool_calls: [{ id: "read", name: "todo", arguments: {} }] }, { text: "listed" });
  await ask(session, "what is on the list?");
  const sent = llm.requests.at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
  return JSON.parse(sent.find((message) => message.tool_call_id === "read")!.content).todos;
}

describe("todo list across restore", () => {
  it("comes back on load (a new process) and on fork", async () => {
    const first = await runtime().sessions.create(home.workspace);
    sessions.push(first);
    const todos = [
      { id: "1", content: "write the migration", status: "completed" },
      { id: "2", content: "run the tests", status: "in_progress" },
    ];
    llm.push({ tool_calls: [{ id: "plan", name: "todo", arguments: { todos } }] }, { text: "planned" });
    await ask(first, "plan it");
    await first.saved();

    const restored = await runtime().sessions.restore(first.id);
    sessions.push(restored!);
    expect(await readTodos(restored!)).toEqual(todos);

    const fork = await runtime().sessions.fork(first.id, home.workspace);
    sessions.push(fork!);
    expect(await readTodos(fork!)).toEqual(todos);
  });
});
