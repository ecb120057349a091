import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateStore } from "../../src/store/state-store.js";
import type { StoredMessage } from "../../src/store/types.js";
import { BUILT_BINARY } from "../support/acp-client.js";
import { writeHermesState } from "../support/hermes-state-fixture.js";
import { hermesUserSessions } from "../support/hermes-user-sessions.js";
import { createTempHome, type TempHome } from "../support/temp-home.js";

/** `hermes sessions list|search|export|delete` of the built binary against a state.db written here. */
let home: TempHome;
let projectA: string;
let projectB: string;

const T0 = Date.UTC(2025, 0, 2, 9, 30, 0);

beforeEach(() => {
  home = createTempHome();
  projectA = join(home.workspace, "project-a");
  projectB = join(home.workspace, "project-b");
  mkdirSync(projectA);
  mkdirSync(projectB);
});

afterEach(() => {
  home.cleanup();
});

/** Writes three sessions (oldest first: cache in A, tests in B, docs in A) and closes the store. */
function seed(): void {
  let clock = T0;
  const store = new StateStore(join(home.home, "state.db"), { now: () => (clock += 60_000) });
  const write = (id: string, cwd: string, title: string | null, messages: StoredMessage[]): void => {
    const meta = store.createSession({ id, cwd, model: "test-model", provider: "custom" });
    store.appendMessages(meta, messages);
    if (title) store.setTitle(id, title);
  };
  write("sess-cache", projectA, "Gateway caching", [
    { role: "user", content: "We chose the flamingo caching strategy for the gateway" },
    { role: "assistant", content: null, reasoning: "Look at the files first.", tool_calls: [{ id: "call_1", type: "function", function: { name: "terminal", arguments: '{"command":"ls src"}' } }] },
    { role: "tool", tool_call_id: "call_1", name: "terminal", content: `START ${"x".repeat(9000)} END` },
    { role: "assistant", content: "Flamingo caching lives in `src/cache.ts`." },
  ]);
  write("sess-tests", projectB, "Flaky tests", [
    { role: "user", content: "why do the tests fail on CI?" },
    { role: "assistant", content: "A race in the fixture setup." },
  ]);
  write("sess-docs", projectA, null, [{ role: "user", content: "write the README" }]);
  store.close();
}

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BUILT_BINARY, "sessions", ...args], { env: home.env({ TZ: "UTC", ...env }), cwd: home.workspace });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe("hermes sessions list", () => {
  it("lists sessions newest first with time, message count, title and folder", async () => {
    seed();
    const result = await run(["list"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split(" ")[0])).toEqual(["sess-docs", "sess-tests", "sess-cache"]);
    expect(lines[0]).toContain("(untitled)");
    expect(lines[2]).toMatch(/^sess-cache\s+2025-01-02 09:3\d\s+4 msgs\s+Gateway caching\s+\[.*project-a\]$/);
  });

  it("filters by folder, also through a symlink, and prints JSON with ISO times", async () => {
    seed();
    const link = join(home.workspace, "link-to-a");
    symlinkSync(projectA, link);
    const result = await run(["list", "--cwd", link, "--json"]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { sessions: Array<{ id: string; lastActiveAt: string; messageCount: number }>; more: boolean };
    expect(body.sessions.map((session) => session.id)).toEqual(["sess-docs", "sess-cache"]);
    expect(body.sessions[1]).toMatchObject({ messageCount: 4, lastActiveAt: expect.stringMatching(/^2025-01-02T09:3\d:00\.000Z$/) });
    expect(body.more).toBe(false);
    const limited = await run(["list", "--limit", "1"]);
    expect(limited.stdout).toContain("sess-docs");
    expect(limited.stdout).toContain("raise --limit");
  });

  it("says there are none without creating state.db", async () => {
    const result = await run(["list"]);
    expect(result).toMatchObject({ code: 0, stdout: "No sessions.\n" });
    expect(existsSync(join(home.home, "state.db"))).toBe(false);
  });
});

describe("hermes sessions search", () => {
  it("finds a word said sessions ago, with the match highlighted", async () => {
    seed();
    const result = await run(["search", "flamingo"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("1. Gateway caching  (sess-cache)");
    expect(result.stdout).toMatch(/\*\*flamingo\*\*/i);
    expect(result.stdout).not.toContain("sess-tests");
  });

  it("prints hits as JSON, honours --limit, and reports no match plainly", async () => {
    seed();
    const json = await run(["search", "the", "--json", "--limit", "1"]);
    const body = JSON.parse(json.stdout) as { query: string; hits: Array<{ sessionId: string; snippet: string; when: string }> };
    expect(body.query).toBe("the");
    expect(body.hits).toHaveLength(1);
    expect(body.hits[0]!.when).toMatch(/^2025-01-02T/);
    expect(await run(["search", "zeppelin"])).toMatchObject({ code: 0, stdout: 'No sessions match "zeppelin".\n' });
  });
});

describe("hermes sessions export", () => {
  it("exports a Markdown transcript with facts, headings by role, fenced tool calls and clipped results", async () => {
    seed();
    const result = await run(["export", "sess-cache"]);
    expect(result.code).toBe(0);
    const md = result.stdout;
    expect(md.startsWith("# Gateway caching\n\n- **ID:** `sess-cache`\n")).toBe(true);
    expect(md).toContain(`- **Directory:** ${projectA}`);
    expect(md).toContain("- **Model:** test-model (custom)");
    expect(md).toContain("- **Messages:** 4");
    expect(md).toContain("## User\n\nWe chose the flamingo caching strategy for the gateway");
    expect(md).toContain("<details><summary>Reasoning</summary>\n\nLook at the files first.");
    expect(md).toContain('**Tool call:** `terminal` (`call_1`)\n\n```json\n{\n  "command": "ls src"\n}\n```');
    expect(md).toContain("## Tool result: terminal");
    expect(md).toContain("START xxx");
    expect(md).toContain("xxx END");
    expect(md).toMatch(/chars omitted/);
    expect(md.length).toBeLessThan(7000);
    expect(md).toContain("## Assistant\n\nFlamingo caching lives in `src/cache.ts`.");
  });

  it("exports every field as JSON with --json", async () => {
    seed();
    const result = await run(["export", "sess-cache", "--json"]);
    const body = JSON.parse(result.stdout) as { session: { id: string; title: string; cwd: string }; messages: Array<{ role: string; content: string | null }> };
    expect(body.session).toMatchObject({ id: "sess-cache", title: "Gateway caching", cwd: projectA });
    expect(body.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(body.messages[2]!.content).toHaveLength(9010);
  });

  it("fails clearly for an unknown id", async () => {
    seed();
    const result = await run(["export", "nope"]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toContain("no session with id 'nope'");
  });
});

describe("hermes sessions delete", () => {
  it("deletes a session and says what went, then fails for it", async () => {
    seed();
    const result = await run(["delete", "sess-tests"]);
    expect(result).toMatchObject({ code: 0, stdout: `Deleted session sess-tests "Flaky tests" (2 messages, ${projectB}).\n` });
    expect((await run(["list"])).stdout).not.toContain("sess-tests");
    expect((await run(["search", "fixture"])).stdout).toContain("No sessions match");
    const again = await run(["delete", "sess-tests"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("no session with id 'sess-tests'");
  });
});

describe("hermes sessions usage", () => {
  it("rejects bad command lines with the usage and exit 2", async () => {
    for (const args of [[], ["frob"], ["list", "--limit", "zero"], ["search"], ["export"], ["delete", "a", "b"], ["list", "--bogus"]]) {
      const result = await run(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("hermes sessions export ID");
    }
    const help = await run(["--help"]);
    expect(help, help.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining("hermes sessions list") });
  });
});

describe("hermes sessions beside Python Hermes' own state.db", () => {
  const TELEGRAM = "20241224_020000_bb22";

  /** Hermes' state.db first (its history), then hermes-acp's sessions, which go to state-acp.db. */
  function seedBoth(): { hermesDb: string; before: string } {
    const hermesDb = join(home.home, "state.db");
    writeHermesState(hermesDb, hermesUserSessions());
    const before = `${createHash("sha256").update(readFileSync(hermesDb)).digest("hex")} ${statSync(hermesDb).mtimeMs}`;
    seed();
    expect(existsSync(join(home.home, "state-acp.db"))).toBe(true);
    return { hermesDb, before };
  }
  const fingerprint = (file: string): string => `${createHash("sha256").update(readFileSync(file)).digest("hex")} ${statSync(file).mtimeMs}`;

  it("lists both, Hermes' sessions labelled with their source, hidden ones left out", async () => {
    const { hermesDb, before } = seedBoth();
    const result = await run(["list"]);
    expect(result).toMatchObject({ code: 0 });
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split(" ")[0])).toEqual([
      "sess-docs",
      "sess-tests",
      "sess-cache",
      "20241224_040000_dd44",
      "20241224_031000_cc34",
      "20241224_030000_cc33",
      TELEGRAM,
      "20241224_010000_aa11",
    ]);
    expect(lines.find((line) => line.startsWith(TELEGRAM))).toMatch(/Pancake recipe\s+\(Hermes telegram\)$/);
    expect(lines.find((line) => line.startsWith("20241224_010000_aa11"))).toMatch(/Deploy script\s+\[\/home\/user\/infra\]\s+\(Hermes cli\)$/);
    expect(result.stdout).not.toContain("20241224_050000_ee55");
    const json = JSON.parse((await run(["list", "--json"])).stdout) as { sessions: Array<{ id: string; origin?: string; source: string }> };
    expect(json.sessions.find((session) => session.id === TELEGRAM)).toMatchObject({ origin: "hermes", source: "telegram" });
    expect(json.sessions.find((session) => session.id === "sess-cache")).not.toHaveProperty("origin");
    expect(fingerprint(hermesDb)).toBe(before);
  });

  it("searches both and exports a Hermes session; deleting one is refused", async () => {
    const { hermesDb, before } = seedBoth();
    const search = await run(["search", "buttermilk OR flamingo"]);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain(`Pancake recipe  (${TELEGRAM})`);
    expect(search.stdout).toContain("Hermes telegram");
    expect(search.stdout).toContain("Gateway caching  (sess-cache)");
    const telescopes = JSON.parse((await run(["search", "nebulae", "--json"])).stdout) as { hits: Array<{ rootSessionId: string; source: string; origin?: string }> };
    expect(telescopes.hits.map((hit) => [hit.rootSessionId, hit.source, hit.origin])).toEqual([
      ["20241224_030000_cc33", "discord", "hermes"],
      ["20241224_040000_dd44", "cron", "hermes"],
    ]);

    const md = await run(["export", TELEGRAM]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("# Pancake recipe");
    expect(md.stdout).toContain("- **Source:** telegram (Python Hermes' history, read-only)");
    expect(md.stdout).toContain("## User\n\nwhat goes into buttermilk pancakes?");
    expect(md.stdout).not.toContain("waffles");
    expect((await run(["export", "20241224_050000_ee55"])).code).toBe(1);

    const refused = await run(["delete", TELEGRAM]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is Python Hermes'");
    expect(fingerprint(hermesDb)).toBe(before);
  });
});
