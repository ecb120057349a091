import { describe, expect, it } from "vitest";
import type { AgentSession } from "../src/runtime/session.js";
import { runtimeSuite } from "./support/runtime-suite.js";

/** A loaded, resumed or forked session gets its todo list back (as Hermes restores it from history). */
const suite = runtimeSuite();
const ask = (session: AgentSession, text: string) => suite.ask(session, text);

/** What the todo tool answers when the model reads the list (no arguments) in `session`. */
async function readTodos(session: AgentSession): Promise<unknown> {
  suite.llm.push({ tool_calls: [{ id: "read", name: "todo", arguments: {} }] }, { text: "listed" });
  await ask(session, "what is on the list?");
  const sent = suite.llm.requests.at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
  return JSON.parse(sent.find((message) => message.tool_call_id === "read")!.content).todos;
}

describe("todo list across restore", () => {
  it("comes back on load (a new process) and on fork", async () => {
    const first = await suite.open();
    const todos = [
      { id: "1", content: "write the migration", status: "completed" },
      { id: "2", content: "run the tests", status: "in_progress" },
    ];
    suite.llm.push({ tool_calls: [{ id: "plan", name: "todo", arguments: { todos } }] }, { text: "planned" });
    await ask(first, "plan it");
    await first.saved();

    const restored = suite.track((await suite.newRuntime().sessions.restore(first.id))!);
    expect(await readTodos(restored)).toEqual(todos);

    const fork = suite.track((await suite.newRuntime().sessions.fork(first.id, suite.home.workspace))!);
    expect(await readTodos(fork)).toEqual(todos);
  });
});
