import { methods, type RequestPermissionRequest, type RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { TERMINAL_NOTE } from "../src/acp/commands/rollback.js";
import { log } from "../src/shared/logger.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import type { InMemoryAgent } from "./support/in-memory-acp.js";

/** Checkpoints before write_file / patch and `/rollback`, over ACP with a scripted model and real files and git. */
log.configure({ level: "error" });
const suite = acpPairSuite();

const ALLOW: RequestPermissionResponse = { outcome: { outcome: "selected", optionId: "allow_once" } };
const DENY: RequestPermissionResponse = { outcome: { outcome: "selected", optionId: "deny" } };

function configure(checkpoints: boolean): void {
  suite.home.writeConfig(
    `model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n${checkpoints ? "checkpoints:\n  enabled: true\n" : ""}`,
  );
}

const file = (name: string): string => join(suite.home.workspace, name);
const read = (name: string): string | undefined => (existsSync(file(name)) ? readFileSync(file(name), "utf8") : undefined);

beforeEach(() => {
  writeFileSync(file("a.txt"), "alpha\n");
  writeFileSync(file("b.txt"), "beta\n");
});

/** A pair whose user allows every edit, and answers `/rollback` confirmations with `rollback`. */
async function open(rollback: RequestPermissionResponse = ALLOW): Promise<{ pair: InMemoryAgent; sessionId: string }> {
  const pair = suite.connect({ onPermission: (request) => (request.toolCall.title?.startsWith("/rollback") ? rollback : ALLOW) });
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { pair, sessionId };
}

/** Sends `text` and answers with the agent's message text of that prompt. */
async function say(pair: InMemoryAgent, sessionId: string, text: string): Promise<string> {
  const from = pair.updates.length;
  await pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  return pair.updates
    .slice(from)
    .map((notification) => notification.update)
    .flatMap((update) => (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? [update.content.text] : []))
    .join("");
}

/** Turn 1: write_file a.txt. Turn 2: patch b.txt and create c.txt. */
async function twoTurns(pair: InMemoryAgent, sessionId: string): Promise<void> {
  suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "alpha 2\n" } }] }, { text: "wrote a" });
  await say(pair, sessionId, "change a");
  suite.llm.push(
    {
      tool_calls: [
        { id: "p1", name: "patch", arguments: { path: "b.txt", old_string: "beta", new_string: "beta 2" } },
        { id: "w2", name: "write_file", arguments: { path: "c.txt", content: "new file\n" } },
      ],
    },
    { text: "patched b, created c" },
  );
  await say(pair, sessionId, "change b, add c");
  expect([read("a.txt"), read("b.txt"), read("c.txt")]).toEqual(["alpha 2\n", "beta 2\n", "new file\n"]);
}

function rollbackRequests(pair: InMemoryAgent): RequestPermissionRequest[] {
  return pair.permissions.filter((request) => request.toolCall.title?.startsWith("/rollback"));
}

describe("checkpoints and /rollback", () => {
  it("lists one checkpoint per editing turn and restores both edited files after asking, deleting the file the agent created", async () => {
    configure(true);
    const { pair, sessionId } = await open();
    await twoTurns(pair, sessionId);

    const listing = await say(pair, sessionId, "/rollback");
    expect(listing).toContain(`📸 Checkpoints for ${suite.home.workspace}`);
    expect(listing).toMatch(/ {2}1\. [0-9a-f]{7,} {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} {2}patch: b\.txt\n/);
    expect(listing).toMatch(/ {2}2\. [0-9a-f]{7,} {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} {2}write_file: a\.txt\n/);
    expect(rollbackRequests(pair)).toHaveLength(0);

    const reply = await say(pair, sessionId, "/rollback 2");
    const [asked] = rollbackRequests(pair);
    expect(asked!.options.map((option) => option.optionId)).toEqual(["allow_once", "deny"]);
    const diffs = (asked!.toolCall.content ?? []).flatMap((content) => (content.type === "diff" ? [content] : []));
    expect(diffs.map((diff) => [diff.path, diff.oldText ?? null, diff.newText])).toEqual([
      [file("a.txt"), "alpha 2\n", "alpha\n"],
      [file("b.txt"), "beta 2\n", "beta\n"],
      [file("c.txt"), "new file\n", ""],
    ]);
    expect([read("a.txt"), read("b.txt"), read("c.txt")]).toEqual(["alpha\n", "beta\n", undefined]);
    expect(reply).toContain("⏪ Restored the files to checkpoint 2");
    expect(reply).toMatch(/restored +a\.txt \(\+1\/-1\)/);
    expect(reply).toMatch(/restored +b\.txt/);
    expect(reply).toMatch(/deleted +c\.txt/);
    expect(reply).toContain(TERMINAL_NOTE);

    // The rollback can itself be rolled back: its pre-rollback snapshot is now checkpoint 1.
    await say(pair, sessionId, "/rollback 1");
    expect([read("a.txt"), read("b.txt"), read("c.txt")]).toEqual(["alpha 2\n", "beta 2\n", "new file\n"]);
  });

  it("/rollback 1 undoes the last editing turn only", async () => {
    configure(true);
    const { pair, sessionId } = await open();
    await twoTurns(pair, sessionId);
    await say(pair, sessionId, "/rollback 1");
    expect([read("a.txt"), read("b.txt"), read("c.txt")]).toEqual(["alpha 2\n", "beta\n", undefined]);
  });

  it("restores nothing when files change while the confirmation is open, so no unseen file is deleted", async () => {
    configure(true);
    const pair = suite.connect({
      onPermission: (request) => {
        if (request.toolCall.title?.startsWith("/rollback")) writeFileSync(file("mine.txt"), "the user's own file\n");
        return ALLOW;
      },
    });
    await pair.initialize();
    const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    await twoTurns(pair, sessionId);
    const reply = await say(pair, sessionId, "/rollback 2");
    expect(reply).toBe("The files changed after the diff you confirmed, so nothing was restored. Run /rollback 2 again to see what it would change now.");
    expect([read("a.txt"), read("b.txt"), read("c.txt"), read("mine.txt")]).toEqual(["alpha 2\n", "beta 2\n", "new file\n", "the user's own file\n"]);
  });

  it("changes nothing when the user denies the rollback", async () => {
    configure(true);
    const { pair, sessionId } = await open(DENY);
    await twoTurns(pair, sessionId);
    const reply = await say(pair, sessionId, "/rollback 2");
    expect(rollbackRequests(pair)).toHaveLength(1);
    expect(reply).toBe("Rollback cancelled. No files were changed.");
    expect([read("a.txt"), read("b.txt"), read("c.txt")]).toEqual(["alpha 2\n", "beta 2\n", "new file\n"]);
    expect(await say(pair, sessionId, "/rollback")).toMatch(/ {2}2\. .*write_file: a\.txt\n/);
  });

  it("is off by default: edits leave nothing under $HERMES_HOME/checkpoints and /rollback says how to turn it on", async () => {
    configure(false);
    const { pair, sessionId } = await open();
    await twoTurns(pair, sessionId);
    expect(existsSync(join(suite.home.home, "checkpoints"))).toBe(false);
    expect(await say(pair, sessionId, "/rollback")).toContain("Checkpoints are not enabled");
  });

  it("never fails an edit when the checkpoints folder cannot be written, and says so once", async () => {
    configure(true);
    writeFileSync(join(suite.home.home, "checkpoints"), "not a folder");
    const { pair, sessionId } = await open();
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "alpha 2\n" } }] }, { text: "wrote a" });
    const first = await say(pair, sessionId, "change a");
    suite.llm.push({ tool_calls: [{ id: "w2", name: "write_file", arguments: { path: "b.txt", content: "beta 2\n" } }] }, { text: "wrote b" });
    const second = await say(pair, sessionId, "change b");
    expect([read("a.txt"), read("b.txt")]).toEqual(["alpha 2\n", "beta 2\n"]);
    expect(first).toContain("⚠ Checkpoints are unavailable:");
    expect(second).not.toContain("Checkpoints are unavailable");
    const failed = pair.updates.some(({ update }) => update.sessionUpdate === "tool_call_update" && update.status === "failed");
    expect(failed).toBe(false);
  });
});
