import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeHermesState } from "./support/hermes-state-fixture.js";
import { hermesUserSessions } from "./support/hermes-user-sessions.js";
import { runtimeSuite } from "./support/runtime-suite.js";

/**
 * The history a Hermes user already has: with Python Hermes' state.db in HERMES_HOME, the real
 * runtime's `session_search` finds its sessions (labelled with their source, one result per
 * conversation, hidden sources never), while hermes-acp writes its own state-acp.db and leaves
 * Hermes' file exactly as it was.
 */
const suite = runtimeSuite();

const TELEGRAM = "20241224_020000_bb22";
const ROOT = "20241224_030000_cc33";
const CONTINUATION = "20241224_031000_cc34";
const SUBAGENT = "20241224_050000_ee55";

interface Result {
  session_id: string;
  source: string;
  title: string | null;
  parent_session_id?: string;
  snippet?: string;
}

const fingerprint = (file: string): { hash: string; mtime: number; size: number } => {
  const stat = statSync(file);
  return { hash: createHash("sha256").update(readFileSync(file)).digest("hex"), mtime: stat.mtimeMs, size: stat.size };
};

/** The JSON `session_search` answered to the call `callId`, from what the model was sent next. */
function toolResult(callId: string): { results: Result[]; success: boolean } {
  const messages = suite.llm.requests.at(-1)!.body.messages as Array<{ tool_call_id?: string; content: string }>;
  return JSON.parse(messages.find((message) => message.tool_call_id === callId)!.content) as { results: Result[]; success: boolean };
}

describe("session_search over the history Python Hermes keeps", () => {
  it("finds Telegram and Discord sessions labelled with their source, one per conversation, never the hidden ones, reading only", async () => {
    const hermesDb = join(suite.home.home, "state.db");
    writeHermesState(hermesDb, hermesUserSessions());
    const before = fingerprint(hermesDb);

    const session = await suite.open();
    suite.llm.push(
      {
        tool_calls: [
          { id: "s1", name: "session_search", arguments: { query: "buttermilk" } },
          { id: "s2", name: "session_search", arguments: { query: "nebulae", limit: 10 } },
          { id: "s3", name: "session_search", arguments: { query: "secret notes" } },
          { id: "s4", name: "session_search", arguments: {} },
        ],
      },
      { text: "Found them." },
    );
    await suite.ask(session, "what did I ask Hermes about pancakes and telescopes?");

    const pancakes = toolResult("s1");
    expect(pancakes.success).toBe(true);
    expect(pancakes.results.map((result) => [result.session_id, result.source, result.title])).toEqual([[TELEGRAM, "telegram", "Pancake recipe"]]);
    expect(pancakes.results[0]!.snippet).toMatch(/>>>buttermilk<<</i);

    const telescopes = toolResult("s2").results;
    const lineage = telescopes.filter((result) => [ROOT, CONTINUATION].includes(result.session_id));
    expect(lineage).toHaveLength(1);
    expect(lineage[0]).toMatchObject({ title: "Telescope choice", source: "discord" });
    expect(telescopes.map((result) => result.source)).toEqual(["discord", "cron"]);

    expect(toolResult("s3").results).toEqual([]);
    const browsed = toolResult("s4").results;
    expect(browsed.map((result) => result.session_id)).toContain(CONTINUATION);
    expect(browsed.find((result) => result.session_id === CONTINUATION)).toMatchObject({ parent_session_id: ROOT });
    const answers = (suite.llm.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "tool");
    expect(answers).toHaveLength(4);
    for (const answer of answers) {
      expect(answer.content).not.toContain(SUBAGENT);
      expect(answer.content).not.toContain("secret subagent notes");
      expect(answer.content).not.toContain("delegate child notes");
    }

    // hermes-acp kept its own session beside Hermes' file, and never wrote Hermes' file
    expect(existsSync(join(suite.home.home, "state-acp.db"))).toBe(true);
    await session.saved();
    suite.runtime.directory.close();
    expect(fingerprint(hermesDb)).toEqual(before);
  });

  it("gives a session of hermes-acp and its fork one result, beside Hermes' sessions", async () => {
    writeHermesState(join(suite.home.home, "state.db"), hermesUserSessions());
    const first = await suite.open();
    suite.llm.push({ text: "Axolotls regrow limbs." });
    await suite.ask(first, "tell me about axolotl regeneration");
    await first.saved();
    const fork = suite.track((await suite.runtime.sessions.fork(first.id, suite.home.workspace))!);
    suite.llm.push({ text: "Also hearts, for axolotls." });
    await suite.ask(fork, "and axolotl hearts?");
    await fork.saved();

    const asking = await suite.open();
    suite.llm.push({ tool_calls: [{ id: "a1", name: "session_search", arguments: { query: "axolotl OR buttermilk", limit: 10 } }] }, { text: "ok" });
    await suite.ask(asking, "what do I know about axolotls?");
    const results = toolResult("a1").results;
    const own = results.filter((result) => [first.id, fork.id].includes(result.session_id));
    expect(own).toHaveLength(1);
    expect(own[0]!.source).toBe("acp");
    expect(results.map((result) => result.source).sort()).toEqual(["acp", "telegram"]);
  });
});
