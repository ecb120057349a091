import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { afterEach, describe, expect, it } from "vitest";
import { loadSqlite } from "../../src/store/sqlite.js";
import { BUILT_BINARY, spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { sandboxUsable } from "../support/sandbox.js";

/**
 * Issue 10: a state.db locked by another process never freezes the agent (the stream flows, other
 * requests answer) and the turn is stored in order once the lock clears; a full disk is told to
 * the user and leaves the stored history intact. Real processes, a real lock, a real tiny tmpfs.
 */
const suite = e2eSuite();
const PROJECT = resolve(import.meta.dirname, "../..");
const lockers: ChildProcess[] = [];
afterEach(() => {
  for (const child of lockers.splice(0)) child.kill("SIGKILL");
});

/** Another process holding `BEGIN IMMEDIATE` on `dbPath` until `release` is called. */
async function holdLock(dbPath: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const db = new (require("better-sqlite3"))(process.argv[1]);
    db.exec("BEGIN IMMEDIATE"); console.log("locked");
    process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); console.log("released"); process.exit(0); });`;
  const child = spawn(process.execPath, ["-e", script, dbPath], { cwd: PROJECT, stdio: ["pipe", "pipe", "inherit"] });
  lockers.push(child);
  const lines = createInterface({ input: child.stdout! });
  const next = (): Promise<string> => new Promise((done) => lines.once("line", done));
  expect(await next()).toBe("locked");
  return {
    async release() {
      const released = next();
      child.stdin!.write("go\n");
      expect(await released).toBe("released");
    },
  };
}

function storedTexts(dbPath: string, sessionId: string): string[] {
  const db = new (loadSqlite())(dbPath, { readonly: true });
  try {
    return db
      .prepare<{ role: string; content: string | null }>("SELECT role, content FROM messages WHERE session_id = ? ORDER BY id")
      .all(sessionId)
      .map((row) => `${row.role}:${row.content}`);
  } finally {
    db.close();
  }
}

function agentText(agent: AgentProcess): string {
  return agent.updates
    .map((n) => n.update)
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");
}

describe("a state.db another process keeps locked", () => {
  it("streams the answer and serves other requests meanwhile, and stores the turn whole and in order once the lock clears", async () => {
    const dbPath = join(suite.home.home, "state.db");
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "before the lock" });
    await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "first" }] });

    const lock = await holdLock(dbPath);
    suite.llm.push({ text: "one two three", chunks: ["one ", "two ", "three"], delayMs: 20 });
    const turn = suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "during the lock" }] });
    // The agent answers other requests while its writes wait for the lock.
    const listed = await suite.agent.connection.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.map((session) => session.sessionId)).toContain(sessionId);
    const result = await turn;
    expect(result.stopReason).toBe("end_turn");
    expect(agentText(suite.agent)).toContain("one two three");
    expect(agentText(suite.agent)).toMatch(/not being saved to state.db: [^\n]*locked by another process/);
    expect(storedTexts(dbPath, sessionId)).toEqual(["user:first", "assistant:before the lock"]);

    await lock.release();
    const expected = ["user:first", "assistant:before the lock", "user:during the lock", "assistant:one two three"];
    while (storedTexts(dbPath, sessionId).length < expected.length) await new Promise((done) => setTimeout(done, 50));
    expect(storedTexts(dbPath, sessionId)).toEqual(expected);
  });
});

describe.runIf(await sandboxUsable())("a full disk (HERMES_HOME on a tiny real tmpfs)", () => {
  it("tells the user the turn is not saved because the disk is full, and the stored history stays intact", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    suite.llm.push({ text: "stored before" });
    await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "remember the quokka" }] });
    await suite.agent.close();

    // The home moves onto a tmpfs with room for what it holds plus ~96 KB (the WAL index and a little more).
    const used = readdirSync(suite.home.home).reduce((sum, name) => sum + sizeOf(join(suite.home.home, name)), 0);
    const saved = join(suite.home.workspace, "..", "saved");
    mkdirSync(saved);
    const tiny = join(suite.home.workspace, "..", "tiny-home");
    mkdirSync(tiny);
    const script = `cp -a "$SRC/." "$HERMES_HOME/" && node "$BIN" acp; code=$?; cp "$HERMES_HOME"/state.db* "$OUT/"; exit $code`;
    const command = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--size", String(used + 96 * 1024), "--tmpfs", tiny, "--", "bash", "-c", script];
    suite.agent = spawnAgent({ env: suite.home.env({ HERMES_HOME: tiny, SRC: suite.home.home, BIN: BUILT_BINARY, OUT: saved, PATH: `${process.execPath.replace(/\/node$/, "")}:${process.env.PATH ?? ""}` }), command });
    await suite.agent.initialize();
    await suite.agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: suite.home.workspace, mcpServers: [] });
    expect(JSON.stringify(suite.agent.updates)).toContain("remember the quokka");
    suite.llm.push({ text: "fresh answer" });
    const huge = "a long pasted log line\n".repeat(20_000);
    const turn = await suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: huge }] });
    expect(turn.stopReason).toBe("end_turn");
    expect(agentText(suite.agent)).toContain("fresh answer");
    expect(agentText(suite.agent)).toMatch(/not being saved to state.db: [^\n]*disk is full/);
    expect(await suite.agent.close()).toBe(0);

    expect(existsSync(join(saved, "state.db"))).toBe(true);
    const db = new (loadSqlite())(join(saved, "state.db"));
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(db.prepare("SELECT content FROM messages WHERE session_id = ? ORDER BY id").pluck().all(sessionId)).toEqual(["remember the quokka", "stored before"]);
    } finally {
      db.close();
    }
  });
});

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 4096);
}

